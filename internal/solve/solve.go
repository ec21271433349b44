// Package solve is what a prover needs to run gnark's solver on a
// constraint system safely: with every hint's panic made the solve's
// error (a system read from a file sets the constants the hints trust),
// and on one system from several goroutines at once (gnark keeps the state
// of a lookup in the system's own blueprint during a solve).
package solve

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/constraint/solver"
)

// RecoverHints is the solver option (to pass last) with which to solve
// any system: it makes every hint the solver knows (the std gadgets', the
// program's own, any passed before it) turn a panic into its error. Hints
// trust their inputs: the std gadgets' read counts and bit widths from
// the constants a circuit gives them (the emulated arithmetic's limb
// width, a decomposition's bit count), and a file sets those constants, as
// a witness sets the others. The solver runs hints in goroutines of its
// own, where a panic ends the process; under RecoverHints it is an error
// of the solve naming the hint.
func RecoverHints() solver.Option {
	return func(c *solver.Config) error {
		for id, h := range c.HintFunctions {
			c.HintFunctions[id] = recovering(h)
		}
		return nil
	}
}

// recovering returns h, turning its panic into its error.
func recovering(h solver.Hint) solver.Hint {
	name := solver.GetHintName(h)
	return func(q *big.Int, in, out []*big.Int) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("hint %s panicked on its inputs: %v", name, p)
			}
		}()
		return h(q, in, out)
	}
}

// Stateful reports whether sys has blueprints that keep state during a
// solve (std/lookup/logderivlookup's lookups, and the gadgets on them:
// range checks, std/math/uints), and whether OwnState can give a copy
// its own (false when one is of another kind: solve such a system one
// solve at a time).
func Stateful(sys *constraint.System) (stateful, copyable bool) {
	copyable = true
	for _, b := range sys.Blueprints {
		if _, ok := b.(constraint.BlueprintStateful[constraint.U64]); !ok {
			continue
		}
		stateful = true
		if _, ok := b.(*constraint.BlueprintLookupHint[constraint.U64]); !ok {
			copyable = false
		}
	}
	return stateful, copyable
}

// OwnState gives sys, a shallow copy of a system other solves share (the
// caller copies the system's struct), blueprints of its own where the
// shared ones keep state during a solve: gnark resolves a lookup table's
// entries into its blueprint and resets them at each solve, so concurrent
// solves of one system would read and reset each other's. Everything else
// (instructions, coefficients, calldata) stays shared. Call it only when
// Stateful says the state is copyable.
func OwnState(sys *constraint.System) {
	bs := make([]constraint.Blueprint, len(sys.Blueprints))
	copy(bs, sys.Blueprints)
	for i, b := range bs {
		if l, ok := b.(*constraint.BlueprintLookupHint[constraint.U64]); ok {
			bs[i] = &constraint.BlueprintLookupHint[constraint.U64]{EntriesCalldata: l.EntriesCalldata}
		}
	}
	sys.Blueprints = bs
}
