package groth16

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/stages"
)

// synthesize solves the R1CS for the partition's witness.
type synthesize struct{}

func (synthesize) Run(ctx context.Context, in *stages.Input) (any, error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := j.R1CS.Solve(j.Witnesses[in.Partition], j.SolverOptions...)
	if err != nil {
		return nil, fmt.Errorf("circuit %q partition %d: witness does not satisfy the circuit: %w", j.Circuit, in.Partition, err)
	}
	sol, ok := res.(*cs.R1CSSolution)
	if !ok {
		return nil, fmt.Errorf("circuit %q partition %d: solver returned %T, want *cs.R1CSSolution", j.Circuit, in.Partition, res)
	}
	return &Solution{
		Wires: []fr.Element(sol.W),
		A:     []fr.Element(sol.A),
		B:     []fr.Element(sol.B),
		C:     []fr.Element(sol.C),
	}, nil
}
