package keys

import (
	"context"
	"fmt"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/stages/groth16"
)

// ReadR1CS reads a user's constraint system file (gnark's R1CS WriteTo):
// its lengths and compressed streams checked before gnark decodes it, and
// what the solver will index after, so that no file makes the decoder or
// the solver panic; reading stops when ctx is done.
func ReadR1CS(ctx context.Context, path string) (*cs.R1CS, error) {
	sys := new(cs.R1CS)
	if err := readKeyFile(ctx, path, false, r1csDecoder(sys)); err != nil {
		return nil, err
	}
	return sys, nil
}

// ReadUserKeys reads a user's own proving and verifying key files (gnark's
// WriteTo, or WriteRawTo, encodings: from their own setup ceremony, say)
// for sys, named circuit in errors, and checks them against it and each
// other (groth16.CheckKeys): a key of another circuit, or the two keys of
// two setups, are refused naming the mismatch. The proving key's points
// are not checked to be on the curve and in the subgroup (about 160
// times as long as reading them): a key whose points are wrong makes
// proofs that do not verify, and every proof is verified before it
// leaves.
func ReadUserKeys(ctx context.Context, circuit string, sys *cs.R1CS, pkFile, vkFile string) (*g16.ProvingKey, *g16.VerifyingKey, error) {
	vk, err := ReadVK(vkFile)
	if err != nil {
		return nil, nil, err
	}
	pk := new(g16.ProvingKey)
	if err := readKeyFile(ctx, pkFile, false, decoder{check: checkAnyPKLengths, read: pk.UnsafeReadFrom}); err != nil {
		return nil, nil, err
	}
	if err := groth16.CheckKeys(circuit, sys, pk, vk); err != nil {
		return nil, nil, fmt.Errorf("--pk %s and --vk %s: %w", pkFile, vkFile, err)
	}
	return pk, vk, nil
}
