package main

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
)

// TestTheWrittenWitnessesSolveTheWrittenCircuit reads the files back as
// prooflane would and solves each witness; a witness with another Y must
// not solve.
func TestTheWrittenWitnessesSolveTheWrittenCircuit(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			dir := t.TempDir()
			if err := write(system, 1<<8, 2, dir); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "circuit.ccs"))
			if err != nil {
				t.Fatal(err)
			}
			var ccs constraint.ConstraintSystem = &cs.R1CS{}
			if system == "plonk" {
				ccs = &cs.SparseR1CS{}
			}
			if _, err := ccs.ReadFrom(bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			if n := ccs.GetNbConstraints(); n < 1<<7 || n > 1<<8 {
				t.Fatalf("%d constraints for a size of 2^8", n)
			}
			for i := range 2 {
				w := readWitness(t, filepath.Join(dir, fmt.Sprintf("witness-%d.bin", i)))
				if _, err := ccs.Solve(w); err != nil {
					t.Fatalf("witness %d: %v", i, err)
				}
			}
			// X of witness 0 with another Y: not a solution.
			field := ecc.BLS12_381.ScalarField()
			bad, err := frontend.NewWitness(&Squares{X: 1000, Y: image(big.NewInt(1001), 3, field)}, field)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ccs.Solve(bad); err == nil {
				t.Fatal("a witness whose Y is another X's image solved the circuit")
			}
		})
	}
}

func readWitness(t *testing.T, path string) witness.Witness {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := witness.New(ecc.BLS12_381.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	return w
}
