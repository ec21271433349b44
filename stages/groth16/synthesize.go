package groth16

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"go.opentelemetry.io/otel/trace"

	pl "github.com/prooflane/prooflane/otel/semconv"
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
	w := j.Witnesses[in.Partition]
	// sha256's wires are small integers: solved in int64 (smallsolve.go),
	// else by gnark's solver.
	if v, ok := w.Vector().(fr.Vector); ok {
		if sol, err := solveSmall(j.R1CS, &j.small, j.SolverOptions, v); err == nil {
			trace.SpanFromContext(ctx).SetAttributes(pl.KeySolver.String("small"))
			return sol, nil
		}
	}
	trace.SpanFromContext(ctx).SetAttributes(pl.KeySolver.String("gnark"))
	res, err := j.R1CS.Solve(w, j.SolverOptions...)
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
