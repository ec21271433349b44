package keys

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	mrand "math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
)

// fixedSecrets returns secrets drawn from a seeded stream.
func fixedSecrets(t testing.TB, seed uint64) Secrets {
	t.Helper()
	var s Secrets
	r := mrand.New(mrand.NewPCG(seed, 1))
	for _, e := range []*fr.Element{&s.Tau, &s.Alpha, &s.Beta, &s.Gamma, &s.Delta} {
		e.SetUint64(r.Uint64())
		var x fr.Element
		x.SetUint64(r.Uint64() | 1)
		e.Mul(e, &x).Add(e, &x)
	}
	return s
}

// encoded returns pk's raw encoding and vk's encoding, as the cache
// writes them.
func encoded(t testing.TB, pk *g16.ProvingKey, vk *g16.VerifyingKey) ([]byte, []byte) {
	t.Helper()
	var p, v bytes.Buffer
	if _, err := pk.WriteRawTo(&p); err != nil {
		t.Fatal(err)
	}
	if _, err := vk.WriteTo(&v); err != nil {
		t.Fatal(err)
	}
	return p.Bytes(), v.Bytes()
}

// TestNewKeysAreGnarksSetupByteForByte makes gnark's Setup and NewKeys
// draw the same secrets (crypto/rand's Reader replaced by one seeded
// stream for both) and compares the key files.
func TestNewKeysAreGnarksSetupByteForByte(t *testing.T) {
	for _, c := range []struct {
		circuit string
		size    int
	}{{"chain", 64}, {"mimc", 3}, {"chain", 1000}} {
		t.Run(fmt.Sprintf("%s-%d", c.circuit, c.size), func(t *testing.T) {
			sys, _, err := Compile(c.circuit, c.size)
			if err != nil {
				t.Fatal(err)
			}
			orig := rand.Reader
			defer func() { rand.Reader = orig }()
			rand.Reader = mrand.NewChaCha8([32]byte{byte(c.size), 7})
			sec, err := RandomSecrets(0)
			if err != nil {
				t.Fatal(err)
			}
			rand.Reader = mrand.NewChaCha8([32]byte{byte(c.size), 7})
			var gpk g16.ProvingKey
			var gvk g16.VerifyingKey
			if err := g16.Setup(sys, &gpk, &gvk); err != nil {
				t.Fatal(err)
			}
			rand.Reader = orig
			pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantPK, wantVK := encoded(t, &gpk, &gvk)
			gotPK, gotVK := encoded(t, pk, vk)
			if !bytes.Equal(gotPK, wantPK) {
				t.Errorf("proving key differs from gnark's (%d bytes, gnark's %d; first difference at %d)", len(gotPK), len(wantPK), firstDiff(gotPK, wantPK))
			}
			if !bytes.Equal(gotVK, wantVK) {
				t.Errorf("verifying key differs from gnark's (first difference at %d)", firstDiff(gotVK, wantVK))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// proveVerify proves one partition of circuit with pk and verifies the
// proof with vk by gnark's verifier.
func proveVerify(t *testing.T, circuit string, size int, sys *cs.R1CS, pk *g16.ProvingKey, vk *g16.VerifyingKey) error {
	t.Helper()
	s := &Set{Circuit: circuit, Size: size, R1CS: sys, PK: pk, VK: vk}
	ws, err := s.Witnesses(1, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := g16.Prove(sys, pk, ws[0])
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ws[0].Public()
	if err != nil {
		t.Fatal(err)
	}
	return g16.Verify(proof, vk, pub.Vector().(fr.Vector))
}

func TestProofsWithKeysFromSecretsVerify(t *testing.T) {
	for _, c := range []struct {
		circuit string
		size    int
	}{{"chain", 300}, {"mimc", 5}, {"sha256", 1}} {
		t.Run(c.circuit, func(t *testing.T) {
			sys, _, err := Compile(c.circuit, c.size)
			if err != nil {
				t.Fatal(err)
			}
			sec, err := RandomSecrets(0)
			if err != nil {
				t.Fatal(err)
			}
			pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := proveVerify(t, c.circuit, c.size, sys, pk, vk); err != nil {
				t.Fatalf("proof with keys from secrets: %v", err)
			}
		})
	}
}

func TestWrongSecretOrTamperedKeyIsRejected(t *testing.T) {
	sys, _, err := Compile("chain", 200)
	if err != nil {
		t.Fatal(err)
	}
	sec := fixedSecrets(t, 1)
	pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := proveVerify(t, "chain", 200, sys, pk, vk); err != nil {
		t.Fatalf("proof with the right keys: %v", err)
	}
	other := sec
	var one fr.Element
	one.SetOne()
	other.Delta.Add(&other.Delta, &one)
	_, vk2, _, err := NewKeys(context.Background(), sys, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := proveVerify(t, "chain", 200, sys, pk, vk2); err == nil {
		t.Error("a proof verified against the verifying key of another delta")
	}
	pk.G1.Z[0], pk.G1.Z[1] = pk.G1.Z[1], pk.G1.Z[0]
	if err := proveVerify(t, "chain", 200, sys, pk, vk); err == nil {
		t.Error("a proof with two Z bases swapped verified")
	}
}

// Two setups from the same secrets, saved into two caches, give the same
// files byte for byte (checksum trailers included); other secrets do not.
func TestSameSecretsGiveTheSameKeyFiles(t *testing.T) {
	sys, _, err := Compile("mimc", 4)
	if err != nil {
		t.Fatal(err)
	}
	save := func(seed uint64) (pk, vk []byte) {
		t.Helper()
		p, v, _, err := NewKeys(context.Background(), sys, fixedSecrets(t, seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		c := Cache{Dir: t.TempDir()}
		if err := c.Save(&Set{Circuit: "mimc", Size: 4, R1CS: sys, PK: p, VK: v}); err != nil {
			t.Fatal(err)
		}
		_, pp, vp := c.Paths("mimc", 4)
		if pk, err = os.ReadFile(pp); err != nil {
			t.Fatal(err)
		}
		if vk, err = os.ReadFile(vp); err != nil {
			t.Fatal(err)
		}
		return pk, vk
	}
	pk1, vk1 := save(9)
	pk2, vk2 := save(9)
	if !bytes.Equal(pk1, pk2) || !bytes.Equal(vk1, vk2) {
		t.Errorf("two setups from the same secrets differ (proving key at byte %d, verifying key at %d)", firstDiff(pk1, pk2), firstDiff(vk1, vk2))
	}
	if pk3, vk3 := save(10); bytes.Equal(pk3, pk1) || bytes.Equal(vk3, vk1) {
		t.Error("other secrets gave the same key files")
	}
}

func TestSecretsAreNeverFormatted(t *testing.T) {
	sec := fixedSecrets(t, 2)
	for _, verb := range []string{"%v", "%+v", "%#v", "%x", "%s", "%d"} {
		got := fmt.Sprintf(verb, sec) + fmt.Sprintf(verb, &sec)
		for _, e := range []fr.Element{sec.Tau, sec.Alpha, sec.Delta} {
			if strings.Contains(got, e.String()) || strings.Contains(got, fmt.Sprint(e[0])) {
				t.Errorf("%s of the secrets shows a value: %s", verb, got)
			}
		}
	}
}

func TestUnusableSecretsAreRefused(t *testing.T) {
	sys, _, err := Compile("chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	zero := fixedSecrets(t, 3)
	zero.Gamma.SetZero()
	// τ = ω, a point of the domain: its Lagrange evaluations divide by 0.
	onDomain := fixedSecrets(t, 3)
	pk, _, _, err := NewKeys(context.Background(), sys, fixedSecrets(t, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	onDomain.Tau = pk.Domain.Generator
	for _, c := range []struct {
		sec  Secrets
		want string
	}{{zero, "setup secret gamma is zero"}, {onDomain, "setup secret tau is a root of unity of the domain of 64 points"}} {
		_, _, _, err := NewKeys(context.Background(), sys, c.sec, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// plainBackend hides its streams' optional capabilities.
type plainBackend struct{ device.Backend }
type plainDevice struct{ cdev.Device }
type plainStream struct{ cdev.Stream }

func (b plainBackend) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	return plainDevice{d}, err
}
func (d plainDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	return plainStream{s}, err
}

func TestSetupOnABackendMakesKeysThatProve(t *testing.T) {
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for _, c := range []struct {
		be   device.Backend
		want string
	}{
		{be, `setup of circuit "chain" size 300, the bases on cpu device 0 (cpu (emulated device 0)): compile `},
		{plainBackend{be}, `setup of circuit "chain" size 300: the cpu backend cannot multiply the generators: the bases on the host`},
	} {
		var log strings.Builder
		s, err := SetupOn(context.Background(), "chain", 300, c.be, &log)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), c.want) {
			t.Errorf("log %q, want it to say %q", log.String(), c.want)
		}
		if err := proveVerify(t, "chain", 300, s.R1CS, s.PK, s.VK); err != nil {
			t.Errorf("proof with SetupOn's keys: %v", err)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt"))
	_, err = SetupOn(ctx, "chain", 300, be, nil)
	if err == nil || err.Error() != `setup of circuit "chain" size 300 stopped, no keys written: interrupt` {
		t.Errorf("cancelled: error %v", err)
	}
}

func TestTheR1CSEncodedDuringTheSetupIsTheFileWritten(t *testing.T) {
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	var log strings.Builder
	s, err := SetupOn(context.Background(), "sha256", 1<<10, be, &log)
	if err != nil {
		t.Fatal(err)
	}
	if s.r1csFile == nil || !strings.Contains(log.String(), "r1cs encoded alongside") {
		t.Fatalf("the setup did not encode the r1cs while making the key (log %q)", log.String())
	}
	var want bytes.Buffer
	if _, err := s.R1CS.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.r1csFile, want.Bytes()) {
		t.Fatal("the encoding made during the setup is not the system's")
	}
	c := Cache{Dir: t.TempDir()}
	if err := c.Save(s); err != nil {
		t.Fatal(err)
	}
	if s.r1csFile != nil {
		t.Error("the saved set still holds a second copy of its system")
	}
	loaded, err := c.Load(t.Context(), "sha256", 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := loaded.R1CS.WriteTo(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("the r1cs file does not load as the setup's system")
	}
	if err := proveVerify(t, "sha256", 1<<10, loaded.R1CS, loaded.PK, loaded.VK); err != nil {
		t.Errorf("proof with the saved keys: %v", err)
	}
}

func TestASizedCompileIsTheUnsizedSystem(t *testing.T) {
	for _, name := range []string{"chain", "mimc", "sha256"} {
		sized, inst, err := Compile(name, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		unsized, err := CompileCircuit(name, inst.Circuit())
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if _, err := sized.WriteTo(&a); err != nil {
			t.Fatal(err)
		}
		if _, err := unsized.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: the system compiled with its size as capacity differs from gnark's default", name)
		}
	}
}
