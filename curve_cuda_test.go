//go:build cuda

package prooflane_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	g16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/plonk"
	plonkbn254 "github.com/consensys/gnark/backend/plonk/bn254"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
	devcuda "github.com/prooflane/prooflane/device/cuda"
)

// TestCUDABN254ProvesWithBothFamilies is TestWithCurveBN254ProvesWithBothFamilies
// on the CUDA backend: the BN254 kernels under both families' stages,
// each embedded pipeline of the family, a circuit that commits among
// them; gnark's BN254 verifier accepts every proof.
func TestCUDABN254ProvesWithBothFamilies(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	defer be.Close()
	ctx := context.Background()
	dir := t.TempDir()
	circuits := []struct {
		name        string
		circuit     frontend.Circuit
		assignments []frontend.Circuit
	}{
		{"cubic", &Cubic{}, []frontend.Circuit{&Cubic{X: 3, Y: 35}, &Cubic{X: 1, Y: 7}}},
		{"gadgets", &Gadgets{}, []frontend.Circuit{gadgets(1), gadgets(2), gadgets(3)}},
	}
	for _, pipeline := range []string{"groth16", "groth16-two-lock", "plonk", "plonk-single-lock"} {
		for _, c := range circuits {
			t.Run(pipeline+"/"+c.name, func(t *testing.T) {
				opts := []prooflane.Option{prooflane.WithCurve(ecc.BN254), prooflane.WithKeyCache(dir), prooflane.WithBackend(be), prooflane.WithPipeline(pipeline)}
				if pipeline == "plonk" || pipeline == "plonk-single-lock" {
					proofs, err := prooflane.ProvePlonk(ctx, c.circuit, c.assignments, opts...)
					if err != nil {
						t.Fatal(err)
					}
					for i, p := range proofs {
						if _, ok := p.Proof.(*plonkbn254.Proof); !ok {
							t.Fatalf("proof %d is a %T", i, p.Proof)
						}
						if err := plonk.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
							t.Errorf("proof %d: %v", i, err)
						}
					}
					return
				}
				proofs, err := prooflane.Prove(ctx, c.circuit, c.assignments, opts...)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range proofs {
					if _, ok := p.Proof.(*g16bn254.Proof); !ok {
						t.Fatalf("proof %d is a %T", i, p.Proof)
					}
					if err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
						t.Errorf("proof %d: %v", i, err)
					}
				}
			})
		}
	}
}
