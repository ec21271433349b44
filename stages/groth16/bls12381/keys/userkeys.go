package keys

import (
	"context"
	"fmt"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/internal/ccsfile"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// ReadR1CS reads a user's constraint system file (gnark's R1CS WriteTo)
// of at most limit bytes, checked before and after gnark decodes it
// (internal/ccsfile) so that neither decoding nor solving it can panic;
// reading stops when ctx is done.
func ReadR1CS(ctx context.Context, path string, limit int64) (*cs.R1CS, error) {
	sys, err := ccsfile.Read(ctx, path, groth16.Curve, ccsfile.R1CS, limit)
	if err != nil {
		return nil, err
	}
	r, ok := sys.(*cs.R1CS)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, want a BLS12-381 R1CS", path, sys)
	}
	return r, nil
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
