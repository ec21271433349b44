package prooflane_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	g16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/plonk"
	plonkbn254 "github.com/consensys/gnark/backend/plonk/bn254"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
)

// WithCurve(ecc.BN254) proves on BN254 with both families, a circuit
// with no commitment and one whose gadgets commit: every proof is gnark's
// BN254 proof, with its commitment, and gnark's verifier accepts it.
func TestWithCurveBN254ProvesWithBothFamilies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := []prooflane.Option{prooflane.WithCurve(ecc.BN254), prooflane.WithKeyCache(dir)}
	circuits := []struct {
		name        string
		circuit     frontend.Circuit
		assignments []frontend.Circuit
		commitments int
	}{
		{"cubic", &Cubic{}, []frontend.Circuit{&Cubic{X: 3, Y: 35}, &Cubic{X: 1, Y: 7}}, 0},
		{"gadgets", &Gadgets{}, []frontend.Circuit{gadgets(1), gadgets(2)}, 1},
	}
	for _, c := range circuits {
		t.Run("groth16/"+c.name, func(t *testing.T) {
			proofs, err := prooflane.Prove(ctx, c.circuit, c.assignments, opts...)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range proofs {
				proof, ok := p.Proof.(*g16bn254.Proof)
				if !ok {
					t.Fatalf("proof %d is a %T, want a BN254 proof", i, p.Proof)
				}
				if len(proof.Commitments) != c.commitments {
					t.Errorf("proof %d: %d commitments, want %d", i, len(proof.Commitments), c.commitments)
				}
				if err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
					t.Errorf("proof %d: %v", i, err)
				}
			}
		})
		t.Run("plonk/"+c.name, func(t *testing.T) {
			proofs, err := prooflane.ProvePlonk(ctx, c.circuit, c.assignments, opts...)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range proofs {
				proof, ok := p.Proof.(*plonkbn254.Proof)
				if !ok {
					t.Fatalf("proof %d is a %T, want a BN254 proof", i, p.Proof)
				}
				if len(proof.Bsb22Commitments) != c.commitments {
					t.Errorf("proof %d: %d commitments, want %d", i, len(proof.Bsb22Commitments), c.commitments)
				}
				if err := plonk.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
					t.Errorf("proof %d: %v", i, err)
				}
			}
		})
	}
}

// One key cache holds a circuit's keys of both curves apart: a prover of
// the other curve runs its own setup, and a prover of either curve then
// finds its keys without one.
func TestTheKeyCacheKeepsTheCurvesApart(t *testing.T) {
	dir := t.TempDir()
	for _, round := range []string{"setup", "cached"} {
		for _, curve := range []ecc.ID{ecc.BLS12_381, ecc.BN254} {
			var log bytes.Buffer
			pr, err := prooflane.NewProver(&Cubic{}, prooflane.WithCurve(curve), prooflane.WithKeyCache(dir), prooflane.WithLog(&log))
			if err != nil {
				t.Fatal(err)
			}
			pr.Close()
			if ran := strings.Contains(log.String(), "running setup"); ran != (round == "setup") {
				t.Errorf("%s on %s: setup ran %v: %q", round, curve, ran, log.String())
			}
		}
	}
}
