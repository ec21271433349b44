// Package prover is the PLONK family on every curve it serves
// (BLS12-381, the default, and BN254): its stage types, each running the
// stage of its job's curve (stages.ByCurve), and its family.Prover,
// each call going to the prover of its request's curve (family.ByCurve).
// The curve-specific code is package stages/plonk/bls12381 and its
// generated BN254 copy,
// stages/plonk/bn254; the options, stage type names and data types
// every curve shares are package stages/plonk's.
package prover

import (
	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/family"
	plonkbls12381 "github.com/prooflane/prooflane/stages/plonk/bls12381"
	plonkbn254 "github.com/prooflane/prooflane/stages/plonk/bn254"
)

// Factories returns the nine PLONK stage types, serving every curve.
func Factories() []stages.Factory {
	fs, err := stages.ByCurve(
		stages.CurveFactories{Curve: plonkbls12381.Curve, Factories: plonkbls12381.Factories()},
		stages.CurveFactories{Curve: plonkbn254.Curve, Factories: plonkbn254.Factories()},
	)
	if err != nil {
		panic(err) // the copies are generated from one source: a programming error
	}
	return fs
}

// Family returns the PLONK family on every curve.
func Family() *family.ByCurve {
	return family.MustByCurve(map[ecc.ID]family.Prover{
		plonkbls12381.Curve: plonkbls12381.Family{},
		plonkbn254.Curve:    plonkbn254.Family{},
	})
}
