package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
)

// A proof or public-input file is user input: whatever bytes it holds,
// verify's length checks and gnark's decoders return an error or a value,
// without a panic or an allocation the file's size does not justify.
func FuzzProofAndPublicFiles(f *testing.F) {
	out, _, _ := proveSmall(f, "chain")
	for _, name := range []string{"proof-0.bin", "public-0.bin"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var proof g16.Proof
		decodeChecked(data, checkProofLengths, proof.ReadFrom)
		pub, err := witness.New(ecc.BLS12_381.ScalarField())
		if err != nil {
			t.Fatal(err)
		}
		decodeChecked(data, checkPublicLengths, pub.ReadFrom)
	})
}
