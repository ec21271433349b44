package prooflane_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/plonk"
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

// Prove a user's own circuit: three assignments, proved as three
// partitions of one job of the embedded groth16 pipeline, keys set up on
// first use and cached.
func ExampleProve() {
	dir, err := os.MkdirTemp("", "prooflane-keys")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	assignments := []frontend.Circuit{
		&Cubic{X: 3, Y: 35},
		&Cubic{X: 4, Y: 73},
		&Cubic{X: 5, Y: 135},
	}
	proofs, err := prooflane.Prove(context.Background(), &Cubic{}, assignments,
		prooflane.WithKeyCache(dir), prooflane.SilenceGnark())
	if err != nil {
		log.Fatal(err)
	}
	for i, p := range proofs {
		// Prove has verified every proof; a verifier elsewhere needs
		// the proof, the public witness and the verifying key.
		err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public)
		fmt.Printf("proof %d verifies: %v\n", i, err == nil)
	}
	// Output:
	// proof 0 verifies: true
	// proof 1 verifies: true
	// proof 2 verifies: true
}

// Prove a user's own circuit with PLONK: the same call and options, its
// key made on first use from an unsafe KZG SRS (for development) and
// cached, three assignments proved as three partitions of one job of the
// embedded plonk pipeline.
func ExampleProvePlonk() {
	dir, err := os.MkdirTemp("", "prooflane-keys")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	assignments := []frontend.Circuit{
		&Cubic{X: 3, Y: 35},
		&Cubic{X: 4, Y: 73},
		&Cubic{X: 5, Y: 135},
	}
	proofs, err := prooflane.ProvePlonk(context.Background(), &Cubic{}, assignments,
		prooflane.WithKeyCache(dir), prooflane.SilenceGnark())
	if err != nil {
		log.Fatal(err)
	}
	for i, p := range proofs {
		// ProvePlonk has verified every proof; a verifier elsewhere
		// needs the proof, the public witness and the verifying key.
		err := plonk.Verify(p.Proof, p.VerifyingKey, p.Public)
		fmt.Printf("proof %d verifies: %v\n", i, err == nil)
	}
	// Output:
	// proof 0 verifies: true
	// proof 1 verifies: true
	// proof 2 verifies: true
}
