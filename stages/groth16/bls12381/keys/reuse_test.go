package keys

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
)

// setupBackends are the two setups Cache.Setup runs: prooflane's (NewKeys,
// the bases on the CPU backend's device) and gnark's (nil).
func setupBackends(t *testing.T) []struct {
	name string
	be   device.Backend
} {
	t.Helper()
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return []struct {
		name string
		be   device.Backend
	}{{"newkeys", be}, {"gnark", nil}}
}

// freshSetup runs Cache.Setup into an empty cache, which compiles.
func freshSetup(t *testing.T, c Cache, circuit string, size int, be device.Backend) *Set {
	t.Helper()
	var log strings.Builder
	s, ph, err := c.Setup(context.Background(), circuit, size, be, &log)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Cached || ph.Compile == 0 || strings.Contains(log.String(), "compiled circuit") {
		t.Fatalf("a setup into an empty cache: phases %+v, log %q; want a compile and nothing said of a cached one", ph, log.String())
	}
	return s
}

// A setup over a cache whose proving key went missing, was cut short, or
// is whole (setup --force) makes the keys for the cached constraint
// system: no compile (the phases say so, and so does the log), the .r1cs
// left as it was (the same file, not written again), and the new keys
// load and prove, every proof checked by gnark's verifier.
func TestASetupOverAWholeR1CSUsesItInsteadOfCompiling(t *testing.T) {
	const size = 256
	r := rand.New(rand.NewPCG(15, 24))
	for _, b := range setupBackends(t) {
		for _, damage := range []string{"pk removed", "pk cut short", "pk flipped", "vk removed", "nothing (--force)"} {
			t.Run(b.name+"/"+damage, func(t *testing.T) {
				c := Cache{Dir: t.TempDir()}
				before := freshSetup(t, c, "chain", size, b.be)
				rp, pp, vp := c.Paths("chain", size)
				r1cs, err := os.ReadFile(rp)
				if err != nil {
					t.Fatal(err)
				}
				st, err := os.Stat(rp)
				if err != nil {
					t.Fatal(err)
				}
				switch damage {
				case "pk removed":
					err = os.Remove(pp)
				case "vk removed":
					err = os.Remove(vp)
				case "pk cut short":
					var pk []byte
					if pk, err = os.ReadFile(pp); err == nil {
						err = os.Truncate(pp, int64(r.IntN(len(pk))))
					}
				case "pk flipped":
					var pk []byte
					if pk, err = os.ReadFile(pp); err == nil {
						pk[r.IntN(len(pk))] ^= 0x10
						err = os.WriteFile(pp, pk, 0o644)
					}
				}
				if err != nil {
					t.Fatal(err)
				}

				var log strings.Builder
				s, ph, err := c.Setup(context.Background(), "chain", size, b.be, &log)
				if err != nil {
					t.Fatal(err)
				}
				want := "using the compiled circuit in " + rp + " (256 constraints); compile skipped\n"
				if !ph.Cached || ph.Compile != 0 || !strings.Contains(log.String(), want) {
					t.Fatalf("phases %+v, log %q; want the compile skipped and %q", ph, log.String(), want)
				}
				if b.be != nil && !strings.Contains(log.String(), ": compile cached (r1cs read in ") {
					t.Errorf("the phases on the log do not say the compile was cached: %q", log.String())
				}
				after, err := os.Stat(rp)
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(rp)
				if err != nil || !bytes.Equal(got, r1cs) || !os.SameFile(st, after) {
					t.Errorf("the .r1cs was written again or changed (%v)", err)
				}
				loaded, err := c.Load(t.Context(), "chain", size)
				if err != nil {
					t.Fatal(err)
				}
				if loaded.VK.G1.Alpha.Equal(&before.VK.G1.Alpha) || !loaded.VK.G1.Alpha.Equal(&s.VK.G1.Alpha) {
					t.Error("the cache does not hold the new setup's keys")
				}
				if err := proveVerify(t, "chain", size, loaded.R1CS, loaded.PK, loaded.VK); err != nil {
					t.Errorf("proof with the keys made for the cached r1cs: %v", err)
				}
			})
		}
	}
}

// A .r1cs cut short, with a flipped byte, without its trailer, or of
// another circuit or size (renamed into place) is not used: the setup
// compiles, says why, and the save replaces the file with the circuit's
// (the bytes of a fresh save); the keys prove.
func TestACorruptOrForeignR1CSIsNotUsedAndIsReplaced(t *testing.T) {
	const size = 256
	good := Cache{Dir: t.TempDir()}
	freshSetup(t, good, "chain", size, nil)
	grp, _, _ := good.Paths("chain", size)
	want, err := os.ReadFile(grp)
	if err != nil {
		t.Fatal(err)
	}
	foreign := func(circuit string, size int) []byte {
		t.Helper()
		c := Cache{Dir: t.TempDir()}
		freshSetup(t, c, circuit, size, nil)
		rp, _, _ := c.Paths(circuit, size)
		b, err := os.ReadFile(rp)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	flipped := bytes.Clone(want)
	flipped[len(flipped)/2] ^= 1
	for _, b := range setupBackends(t) {
		for _, bad := range []struct {
			name string
			file []byte
			why  string
		}{
			{"cut short", want[:len(want)/3], "is corrupt: no checksum trailer"},
			{"flipped byte", flipped, "is corrupt: checksum mismatch"},
			{"no trailer", want[:len(want)-trailerLen], "is corrupt: no checksum trailer"},
			{"another circuit", foreign("mimc", size), ` constraints, circuit "chain" size 256 compiles to 256`},
			{"another size", foreign("chain", 255), `it has 255 constraints, circuit "chain" size 256 compiles to 256`},
		} {
			t.Run(b.name+"/"+bad.name, func(t *testing.T) {
				c := Cache{Dir: t.TempDir()}
				freshSetup(t, c, "chain", size, b.be)
				rp, _, _ := c.Paths("chain", size)
				if err := os.WriteFile(rp, bad.file, 0o644); err != nil {
					t.Fatal(err)
				}
				var log strings.Builder
				_, ph, err := c.Setup(context.Background(), "chain", size, b.be, &log)
				if err != nil {
					t.Fatal(err)
				}
				say := "not using the compiled circuit in " + rp + ", compiling it again: "
				if ph.Cached || ph.Compile == 0 || !strings.Contains(log.String(), say) || !strings.Contains(log.String(), bad.why) {
					t.Fatalf("phases %+v, log %q; want a compile and %q ... %q", ph, log.String(), say, bad.why)
				}
				if strings.Contains(log.String(), setupAgain) {
					t.Errorf("the log advises the setup that is running: %q", log.String())
				}
				if got, err := os.ReadFile(rp); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("the .r1cs was not replaced by the circuit's (%v)", err)
				}
				s, err := c.Load(t.Context(), "chain", size)
				if err != nil {
					t.Fatal(err)
				}
				if err := proveVerify(t, "chain", size, s.R1CS, s.PK, s.VK); err != nil {
					t.Errorf("proof with the keys of the recompiled circuit: %v", err)
				}
			})
		}
	}
}

// The keys made from fixed secrets for a constraint system read back from
// the cache are byte for byte those made for a fresh compile, for each
// shipped circuit.
func TestKeysForTheCachedR1CSAreTheKeysOfAFreshCompile(t *testing.T) {
	for _, cc := range []struct {
		circuit string
		size    int
	}{{"chain", 300}, {"mimc", 700}, {"sha256", 1 << 10}} {
		t.Run(cc.circuit, func(t *testing.T) {
			sys, _, err := Compile(cc.circuit, cc.size)
			if err != nil {
				t.Fatal(err)
			}
			sec := fixedSecrets(t, 11)
			pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := Cache{Dir: t.TempDir()}
			if err := c.Save(&Set{Circuit: cc.circuit, Size: cc.size, R1CS: sys, PK: pk, VK: vk}); err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			cached := c.reusable(t.Context(), cc.circuit, cc.size, &log)
			if cached == nil {
				t.Fatalf("the saved r1cs is not used: %q", log.String())
			}
			cpk, cvk, _, err := NewKeys(context.Background(), cached.sys, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantPK, wantVK := encoded(t, pk, vk)
			gotPK, gotVK := encoded(t, cpk, cvk)
			if !bytes.Equal(gotPK, wantPK) || !bytes.Equal(gotVK, wantVK) {
				t.Errorf("keys for the cached r1cs differ from a fresh compile's (proving key at byte %d, verifying key at %d)", firstDiff(gotPK, wantPK), firstDiff(gotVK, wantVK))
			}
			if err := proveVerify(t, cc.circuit, cc.size, cached.sys, cpk, cvk); err != nil {
				t.Errorf("proof: %v", err)
			}
		})
	}
}

// A save of keys made for the cached r1cs writes the .r1cs again when the
// file is no longer the one read (another setup replaced it meanwhile),
// and leaves it when it is.
func TestASaveRewritesTheR1CSOnlyWhenTheFileReadWasReplaced(t *testing.T) {
	const size = 256
	be := setupBackends(t)[0].be
	c := Cache{Dir: t.TempDir()}
	freshSetup(t, c, "chain", size, be)
	rp, _, _ := c.Paths("chain", size)
	cached := c.reusable(t.Context(), "chain", size, io.Discard)
	if cached == nil {
		t.Fatal("the saved r1cs is not used")
	}
	s, _, err := setupOn(context.Background(), "chain", size, be, nil, cached)
	if err != nil {
		t.Fatal(err)
	}
	// Replaced by a whole file of other bytes (what a setup whose
	// circuit changed would write): the save must write its own.
	if err := writeFile(rp, func(w io.Writer) (int64, error) { n, err := w.Write([]byte("another system")); return int64(n), err }); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(s); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(t.Context(), "chain", size); err != nil {
		t.Fatalf("after a save over a replaced r1cs: %v", err)
	}
	st, err := os.Stat(rp)
	if err != nil {
		t.Fatal(err)
	}
	s.r1csInfo = st
	if err := c.Save(s); err != nil {
		t.Fatal(err)
	}
	if again, err := os.Stat(rp); err != nil || !os.SameFile(st, again) {
		t.Errorf("the r1cs read was written again (%v)", err)
	}
}

// Cancelled, a setup for the cached r1cs writes nothing.
func TestASetupForTheCachedR1CSStopsWhenCancelled(t *testing.T) {
	const size = 256
	be := setupBackends(t)[0].be
	c := Cache{Dir: t.TempDir()}
	freshSetup(t, c, "chain", size, be)
	_, pp, _ := c.Paths("chain", size)
	if err := os.Remove(pp); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	_, _, err := c.Setup(ctx, "chain", size, be, nil)
	if want := `setup of circuit "chain" size 256 stopped, no keys written: interrupt signal received`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if _, err := os.Stat(pp); !os.IsNotExist(err) {
		t.Errorf("a proving key was written after a cancel (%v)", err)
	}
}
