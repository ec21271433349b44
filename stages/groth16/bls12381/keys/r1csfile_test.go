package keys

import (
	"bytes"
	"encoding/binary"
	"github.com/consensys/gnark-crypto/ecc"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/internal/ccsfile"
	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/internal/solve"
	"github.com/prooflane/prooflane/workloads"
)

// r1csHeader is the length of a constraint system file's header.
const r1csHeader = ccsfile.FileHeader

// r1csInCache compiles circuit at size and writes its constraint system
// to a fresh cache, returning the cache and the file's content.
func r1csInCache(t *testing.T, circuit string, size int) (Cache, []byte) {
	t.Helper()
	sys, _, err := Compile(circuit, size)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: t.TempDir()}
	rp, _, _ := c.Paths(circuit, size)
	if err := writeFile(rp, sys.WriteTo); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := sys.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return c, b.Bytes()
}

// Every shipped circuit's constraint system passes the checks made
// before and after gnark decodes it, at sizes small and less so.
func TestShippedConstraintSystemsPassTheChecks(t *testing.T) {
	for _, circuit := range workloads.Names() {
		for _, size := range []int{64, 1000, 1 << 12} {
			c, _ := r1csInCache(t, circuit, size)
			sys, err := c.LoadR1CS(t.Context(), circuit, size)
			if err != nil {
				t.Fatalf("%s size %d: %v", circuit, size, err)
			}
			inst, _ := workloads.New(ecc.BLS12_381, circuit, size)
			w, err := workloads.Witness(inst.Assignment(3))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sys.Solve(w); err != nil {
				t.Errorf("%s size %d: %v", circuit, size, err)
			}
		}
	}
}

// A constraint system whose bytes changed under a checksum that matches
// them (what a content edit with the trailer recomputed leaves) fails
// LoadR1CS naming the file, or loads a system gnark solves without a
// panic; before the checks, gnark's decoder and solver panicked in
// goroutines of their own on most such files, killing the process.
// Byte flips anywhere, and the lengths and counts of every section set
// to values the bytes do not hold.
func TestAConstraintSystemCorruptUnderItsChecksumIsAnErrorNotAPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 7))
	for _, circuit := range workloads.Names() {
		const size = 256
		c, orig := r1csInCache(t, circuit, size)
		rp, _, _ := c.Paths(circuit, size)
		inst, _ := workloads.New(ecc.BLS12_381, circuit, size)
		w, err := workloads.Witness(inst.Assignment(5))
		if err != nil {
			t.Fatal(err)
		}
		var edits []func([]byte)
		for range 600 {
			at, x := r.IntN(len(orig)), byte(1+r.IntN(255))
			edits = append(edits, func(b []byte) { b[at] ^= x })
		}
		// The section lengths of the system's header, and the counts that
		// open the levels and calldata sections.
		levels := binary.LittleEndian.Uint64(orig[r1csHeader:])
		instructions := binary.LittleEndian.Uint64(orig[r1csHeader+8:])
		for _, at := range []uint64{0, r1csHeader, r1csHeader + 8, r1csHeader + 16, r1csHeader + 24,
			r1csHeader + ccsfile.SystemHeader, r1csHeader + ccsfile.SystemHeader + levels, r1csHeader + ccsfile.SystemHeader + levels + instructions} {
			for _, v := range []uint64{0, 1, 7, 1 << 31, 1 << 40, 1<<64 - 1} {
				edits = append(edits, func(b []byte) { binary.LittleEndian.PutUint64(b[at:], v) })
			}
		}
		loaded := 0
		for i, edit := range edits {
			restore := rewrite(t, rp, edit)
			sys, err := c.LoadR1CS(t.Context(), circuit, size)
			if err != nil {
				if want := `key file "` + rp + `" is corrupt`; !strings.Contains(err.Error(), want) {
					t.Fatalf("%s edit %d: error %v, want it to start %q", circuit, i, err, want)
				}
			} else {
				loaded++
				// an error or not, solved as the prover does (every
				// hint's panic its error: solve.RecoverHints); no panic
				sys.Solve(w, solve.RecoverHints())
			}
			restore()
		}
		t.Logf("%s: %d of %d edits loaded (and solved or failed without a panic)", circuit, loaded, len(edits))
	}
}

// A proving key whose domain declares a size of zero (or one that is not
// a power of two, or does not match its Z points) is corrupt: gnark
// precomputes the domain as it reads it, on goroutines of its own that a
// size of zero made panic.
func TestAProvingKeyWithABadDomainSizeIsCorruptNotAPanic(t *testing.T) {
	_, c := savedChain(t)
	_, pk, _ := c.Paths("chain", 64)
	for _, card := range []uint64{0, 3, 1 << 40, 32} {
		restore := rewrite(t, pk, func(b []byte) { binary.BigEndian.PutUint64(b, card) })
		_, err := c.Load(t.Context(), "chain", 64)
		if want := `key file "` + pk + `" is corrupt`; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Z points") {
			t.Errorf("domain of %d: error %v, want %q about the Z points", card, err, want)
		}
		restore()
	}
	if _, err := c.Load(t.Context(), "chain", 64); err != nil {
		t.Fatal(err)
	}
}

// A constraint system file no longer than its headers is refused by
// the lengths alone.
func TestAConstraintSystemOfHeadersOnlyIsRefused(t *testing.T) {
	c, orig := r1csInCache(t, "chain", 64)
	rp, _, _ := c.Paths("chain", 64)
	for _, n := range []int{0, 16, r1csHeader, r1csHeader + ccsfile.SystemHeader} {
		b := append([]byte(nil), orig[:n]...)
		if n >= r1csHeader {
			binary.LittleEndian.PutUint64(b, uint64(n-r1csHeader))
		}
		if err := os.WriteFile(rp, append(b, keyfile.Trailer(b)...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := c.LoadR1CS(t.Context(), "chain", 64); err == nil || !strings.Contains(err.Error(), "is corrupt") {
			t.Errorf("%d bytes: error %v, want corrupt", n, err)
		}
	}
}
