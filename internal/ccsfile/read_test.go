package ccsfile

import (
	"bytes"
	"github.com/prooflane/prooflane/internal/solve"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
)

// writeFile writes b to a file of a fresh directory, returning its path.
func writeFile(t testing.TB, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Constraint systems gnark compiles from circuits using the std
// gadgets, with either builder, pass the checks and decode to the system
// written (the same bytes when written again), which solves.
func TestCompiledSystemsPassAndDecodeToTheSameSystem(t *testing.T) {
	for _, tc := range testCircuits(t) {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "circuit.ccs", tc.file)
			sys, err := Read(t.Context(), path, ecc.BLS12_381, tc.kind, int64(len(tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := sys.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), tc.file) {
				t.Errorf("read back, it writes %d bytes that differ from the %d it was read from", b.Len(), len(tc.file))
			}
			if _, err := sys.Solve(tc.validWitness(t)); err != nil {
				t.Errorf("solving the system read: %v", err)
			}
			t.Logf("%d constraints, %d instructions, %d bytes", sys.GetNbConstraints(), sys.GetNbInstructions(), len(tc.file))
		})
	}
}

// A file of the other kind, or of a circuit compiled over another field,
// is refused naming the file and what it holds.
func TestReadRefusesAnotherKindOrField(t *testing.T) {
	tc := testCircuitNamed(t, "plain/R1CS")
	path := writeFile(t, "plain.r1cs", tc.file)
	want := `constraint system "` + path + `": holds a constraint system of type R1CS, want SparseR1CS`
	if _, err := Read(t.Context(), path, ecc.BLS12_381, SparseR1CS, 1<<20); err == nil || err.Error() != want {
		t.Errorf("an R1CS read as a SparseR1CS: %v, want %q", err, want)
	}
	for _, k := range []Kind{R1CS, SparseR1CS} {
		var sys constraint.ConstraintSystem
		var err error
		if k == R1CS {
			sys, err = frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, new(plainCircuit))
		} else {
			sys, err = frontend.Compile(ecc.BN254.ScalarField(), scs.NewBuilder, new(plainCircuit))
		}
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := sys.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, "bn254.ccs", b.Bytes())
		want := `constraint system "` + path + `": a constraint system over BN254's scalar field, not BLS12-381's`
		if _, err := Read(t.Context(), path, ecc.BLS12_381, k, 1<<20); err == nil || err.Error() != want {
			t.Errorf("%s over BN254: %v, want %q", k, err, want)
		}
		if got, err := Read(t.Context(), path, ecc.BN254, k, 1<<20); err != nil || got.GetNbConstraints() != sys.GetNbConstraints() {
			t.Errorf("%s over BN254 read as BN254's: %v", k, err)
		}
	}
}

// FuzzRead fuzzes what Read does with a file's bytes: every input is
// refused with an error, or read into a system that solves (under
// RecoverHints, with a random witness) without a panic. The seeds are
// the smallest test circuits (a few KiB: the fuzzer minimises what it
// finds byte by byte).
func FuzzRead(f *testing.F) {
	for _, name := range []string{"plain", "rangecheck", "commit"} {
		for _, k := range []Kind{R1CS, SparseR1CS} {
			tc := testCircuitNamed(f, name+"/"+k.String())
			f.Add(tc.file, k == SparseR1CS)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, sparse bool) {
		kind := R1CS
		if sparse {
			kind = SparseR1CS
		}
		sys, err := parse(b, bls12_381, kind)
		if err != nil {
			return
		}
		r := rand.New(rand.NewPCG(uint64(len(b)), 1))
		sys.Solve(randomWitness(t, sys, r), solve.RecoverHints())
	})
}
