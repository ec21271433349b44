// Command cubic proves three assignments of a small circuit with
// prooflane's embedded Groth16 pipeline and checks each proof again with
// gnark's verifier.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
)

// Cubic proves knowledge of X with X³ + X + 5 = Y, Y public.
type Cubic struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *Cubic) Define(api frontend.API) error {
	x3 := api.Mul(c.X, c.X, c.X)
	api.AssertIsEqual(c.Y, api.Add(x3, c.X, 5))
	return nil
}

func main() {
	assignments := []frontend.Circuit{
		&Cubic{X: 3, Y: 35},
		&Cubic{X: 4, Y: 73},
		&Cubic{X: 5, Y: 135},
	}
	// Keys are made on first use and cached in $XDG_CACHE_HOME/prooflane/keys;
	// prooflane.WithCurve(ecc.BN254) would prove on BN254 instead of BLS12-381.
	proofs, err := prooflane.Prove(context.Background(), &Cubic{}, assignments, prooflane.SilenceGnark())
	if err != nil {
		log.Fatal(err)
	}
	for i, p := range proofs {
		// A verifier elsewhere needs the proof, the public witness and the verifying key.
		err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public)
		fmt.Printf("proof %d verifies: %v\n", i, err == nil)
	}
}
