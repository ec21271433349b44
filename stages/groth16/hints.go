package groth16

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/constraint/solver"
)

// SafeHints returns solver options, to append to opts, that run every
// hint sys calls (gnark's registered ones and opts' own) with a panic
// turned into an error naming the hint. gnark's solver runs hints on
// goroutines of its own, where a panic ends the process, and the hints of
// gnark's gadgets trust their inputs: a constraint system whose constants
// changed (a corrupt file under a matching checksum) makes
// std/math/emulated's slice out of range. The prover solves with them.
func SafeHints(sys *cs.R1CS, opts ...solver.Option) ([]solver.Option, error) {
	cfg, err := solver.NewConfig(opts...)
	if err != nil {
		return nil, err
	}
	var out []solver.Option
	seen := map[solver.HintID]bool{}
	for _, pi := range sys.Instructions {
		// A generic hint's calldata: its length, then the hint's ID.
		if int(pi.BlueprintID) >= len(sys.Blueprints) || pi.StartCallData+1 >= uint64(len(sys.CallData)) {
			continue
		}
		if _, ok := sys.Blueprints[pi.BlueprintID].(*constraint.BlueprintGenericHint); !ok {
			continue
		}
		id := solver.HintID(sys.CallData[pi.StartCallData+1])
		if seen[id] {
			continue
		}
		seen[id] = true
		if h, ok := cfg.HintFunctions[id]; ok {
			out = append(out, solver.OverrideHint(id, safeHint(h)))
		}
	}
	return out, nil
}

// safeHint is h with a panic returned as an error.
func safeHint(h solver.Hint) solver.Hint {
	return func(m *big.Int, in, out []*big.Int) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("hint %s panicked: %v", solver.GetHintName(h), r)
			}
		}()
		return h(m, in, out)
	}
}
