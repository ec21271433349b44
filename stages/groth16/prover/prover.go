// Package prover is the Groth16 family on every curve it serves
// (BLS12-381, the default, and BN254): its stage types, each running the
// stage of its job's curve (stages.ByCurve), and its family.Prover,
// each call going to the prover of its request's curve (family.ByCurve).
// The curve-specific code is package stages/groth16/bls12381 (with its
// keys and prover subpackages) and its generated BN254 copy,
// stages/groth16/bn254; the options, stage type names and data types
// every curve shares are package stages/groth16's.
package prover

import (
	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/family"
	g16bls12381 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	proverbls12381 "github.com/prooflane/prooflane/stages/groth16/bls12381/prover"
	g16bn254 "github.com/prooflane/prooflane/stages/groth16/bn254"
	proverbn254 "github.com/prooflane/prooflane/stages/groth16/bn254/prover"
)

// Factories returns the six Groth16 stage types, serving every curve.
func Factories() []stages.Factory {
	fs, err := stages.ByCurve(
		stages.CurveFactories{Curve: g16bls12381.Curve, Factories: g16bls12381.Factories()},
		stages.CurveFactories{Curve: g16bn254.Curve, Factories: g16bn254.Factories()},
	)
	if err != nil {
		panic(err) // the copies are generated from one source: a programming error
	}
	return fs
}

// Family returns the Groth16 family on every curve.
func Family() *family.ByCurve {
	return family.MustByCurve(map[ecc.ID]family.Prover{
		g16bls12381.Curve: proverbls12381.Family{},
		g16bn254.Curve:    proverbn254.Family{},
	})
}
