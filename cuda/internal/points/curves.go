package points

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfp "github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfp "github.com/consensys/gnark-crypto/ecc/bn254/fp"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"
)

// api.h's pl_curve ids (cuda.Curve's values).
const (
	curveBLS12381 = 0
	curveBN254    = 1
)

// The groups and scalar fields of the curves the kernels are built for:
// the generic implementation above over each curve's gnark-crypto types.
var (
	BLS12381G1 Group[bls.G1Affine, bls.G1Jac] = &group[blsfp.Element, *blsfp.Element, bls.G1Affine, bls.G1Jac, *bls.G1Jac]{
		curve: curveBLS12381, name: "g1",
		gen:      func() bls.G1Affine { _, _, g, _ := bls.Generators(); return g },
		jac:      func(x, y, z blsfp.Element) bls.G1Jac { return bls.G1Jac{X: x, Y: y, Z: z} },
		toAffine: bls.BatchJacobianToAffineG1,
	}
	BLS12381G2 Group[bls.G2Affine, bls.G2Jac] = &group[bls.E2, *bls.E2, bls.G2Affine, bls.G2Jac, *bls.G2Jac]{
		curve: curveBLS12381, name: "g2",
		gen:      func() bls.G2Affine { _, _, _, g := bls.Generators(); return g },
		jac:      func(x, y, z bls.E2) bls.G2Jac { return bls.G2Jac{X: x, Y: y, Z: z} },
		toAffine: perPoint[bls.G2Affine, *bls.G2Affine, bls.G2Jac],
	}
	BN254G1 Group[bn254.G1Affine, bn254.G1Jac] = &group[bnfp.Element, *bnfp.Element, bn254.G1Affine, bn254.G1Jac, *bn254.G1Jac]{
		curve: curveBN254, name: "g1",
		gen:      func() bn254.G1Affine { _, _, g, _ := bn254.Generators(); return g },
		jac:      func(x, y, z bnfp.Element) bn254.G1Jac { return bn254.G1Jac{X: x, Y: y, Z: z} },
		toAffine: bn254.BatchJacobianToAffineG1,
	}
	BN254G2 Group[bn254.G2Affine, bn254.G2Jac] = &group[bn254.E2, *bn254.E2, bn254.G2Affine, bn254.G2Jac, *bn254.G2Jac]{
		curve: curveBN254, name: "g2",
		gen:      func() bn254.G2Affine { _, _, _, g := bn254.Generators(); return g },
		jac:      func(x, y, z bn254.E2) bn254.G2Jac { return bn254.G2Jac{X: x, Y: y, Z: z} },
		toAffine: perPoint[bn254.G2Affine, *bn254.G2Affine, bn254.G2Jac],
	}

	BLS12381Fr Scalars[blsfr.Element, blsfft.Domain] = scalars[blsfr.Element, *blsfr.Element, blsfft.Domain]{
		curve: curveBLS12381,
		domain: func(d *blsfft.Domain) (gen, genInv, coset, cosetInv, nInv blsfr.Element, n uint64) {
			return d.Generator, d.GeneratorInv, d.FrMultiplicativeGen, d.FrMultiplicativeGenInv, d.CardinalityInv, d.Cardinality
		},
	}
	BN254Fr Scalars[bnfr.Element, bnfft.Domain] = scalars[bnfr.Element, *bnfr.Element, bnfft.Domain]{
		curve: curveBN254,
		domain: func(d *bnfft.Domain) (gen, genInv, coset, cosetInv, nInv bnfr.Element, n uint64) {
			return d.Generator, d.GeneratorInv, d.FrMultiplicativeGen, d.FrMultiplicativeGenInv, d.CardinalityInv, d.Cardinality
		},
	}
)
