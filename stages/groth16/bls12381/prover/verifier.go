package prover

import (
	"context"
	"errors"
	"fmt"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// VerifyingKey returns the verifying key of file when it is named, else
// the key cache's for req (its constraint system must have constraints
// constraints, when that is not 0: a directory's manifest says how many
// its proofs were made for). Only the verifying key and, for the count,
// the constraint system are read: not the proving key.
func (f Family) VerifyingKey(ctx context.Context, req family.KeyRequest, file string, constraints int) (family.VerifyingKey, error) {
	if file != "" {
		vk, err := keys.ReadVK(file)
		if err != nil {
			return nil, err
		}
		return newVerifyingKey(vk, file), nil
	}
	if err := f.check(req.System); err != nil {
		return nil, err
	}
	cache := keys.Cache{Dir: req.Dir}
	name, size := req.System.Name, req.System.Size
	vk, err := cache.LoadVK(name, size)
	if errors.Is(err, keys.ErrNotCached) {
		return nil, cacheMiss{fmt.Errorf("no verifying key for %s in the key cache %s: give --keys the cache the proofs were made with, or --vk FILE", req.System, cache.Dir)}
	}
	if err != nil {
		return nil, err
	}
	if constraints != 0 {
		r1cs, err := cache.LoadR1CS(ctx, name, size)
		if err != nil {
			return nil, err
		}
		if n := r1cs.GetNbConstraints(); n != constraints {
			return nil, fmt.Errorf("constraints is %d, but %s has %d (the key cache's constraint system)", constraints, req.System, n)
		}
	}
	_, _, from := cache.Paths(name, size)
	return newVerifyingKey(vk, from), nil
}
