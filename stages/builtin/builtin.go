// Package builtin lists the stage types prooflane ships. Registering a new
// stage family means adding its Factories here (see docs/stages.md).
package builtin

import (
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/family"
	groth16 "github.com/prooflane/prooflane/stages/groth16/prover"
	plonk "github.com/prooflane/prooflane/stages/plonk/prover"
	"github.com/prooflane/prooflane/stages/sim"
)

// Registry returns a registry holding every shipped stage type.
func Registry() *stages.Registry {
	return stages.NewRegistry().
		MustRegister(sim.Factories()...).
		MustRegister(groth16.Factories()...).
		MustRegister(plonk.Factories()...)
}

// Families returns a registry holding every shipped proof family: one line
// a family, beside its stage types above.
func Families() *family.Registry {
	return family.NewRegistry().
		MustRegister(groth16.Family()).
		MustRegister(plonk.Family())
}
