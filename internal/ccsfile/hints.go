package ccsfile

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/constraint/solver"
)

// RecoverHints is the solver option (to pass last) with which to solve
// a system read from a file: it makes every hint the solver knows (the
// std gadgets', the program's own, any passed before it) turn a panic
// into its error. Hints trust their inputs: the std gadgets' read
// counts and bit widths from the constants a circuit gives them (the
// emulated arithmetic's limb width, a decomposition's bit count), and
// a file sets those constants, as a witness sets the others. The solver
// runs hints in goroutines of its own, where a panic ends the process;
// under RecoverHints it is an error of the solve.
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
