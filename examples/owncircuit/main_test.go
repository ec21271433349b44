package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
)

// dir is where the examples write: a temporary directory, also the key
// cache's ($XDG_CACHE_HOME), so that nothing lands in the user's.
var dir string

func TestMain(m *testing.M) {
	var err error
	if dir, err = os.MkdirTemp("", "prooflane-owncircuit"); err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The guide's first step, run as a user runs it: the circuit's
// constraint system, keys and witnesses written into a directory.
func Example_main() {
	os.Args = []string{"owncircuit", filepath.Join(dir, "mycircuit")}
	main()
	for _, name := range []string{"circuit.ccs", "pk.bin", "vk.bin", "witness-0.bin", "witness-1.bin", "witness-2.bin"} {
		if _, err := os.Stat(filepath.Join(dir, "mycircuit", name)); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// groth16: circuit.ccs (4 constraints), pk.bin, vk.bin, witness-0.bin to witness-2.bin
}

// The PLONK files: -system plonk.
func Example_plonk() {
	if err := write("plonk", filepath.Join(dir, "mycircuit-plonk")); err != nil {
		log.Fatal(err)
	}
	// Output:
	// plonk: circuit.ccs (5 constraints), pk.bin, vk.bin, witness-0.bin to witness-2.bin
}

// The guide's library step: the circuit proved in the program itself,
// prooflane's own keys made on first use, each proof checked with gnark's
// verifier.
func Example_library() {
	assignments := []frontend.Circuit{
		&Pythagoras{A: 3, B: 4, C: 5},
		&Pythagoras{A: 5, B: 12, C: 13},
	}
	proofs, err := prooflane.Prove(context.Background(), &Pythagoras{}, assignments, prooflane.SilenceGnark())
	if err != nil {
		log.Fatal(err)
	}
	for i, p := range proofs {
		err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public)
		fmt.Printf("proof %d verifies: %v\n", i, err == nil)
	}
	// Output:
	// proof 0 verifies: true
	// proof 1 verifies: true
}
