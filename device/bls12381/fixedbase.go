package bls12381

import (
	"context"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FixedBase is an optional capability of a Stream, found with As: the
// curve's fixed generators multiplied by many scalars at once, which is
// how a key setup (Groth16's, a PLONK SRS) makes its bases. The generators
// are gnark-crypto's (curve.Generators). Results are affine, the point at
// infinity (a zero scalar) as gnark-crypto writes it, (0, 0): every
// implementation gives exactly the points of gnark-crypto's
// BatchScalarMultiplicationG1/G2 (package device/cpu, the reference).
//
// Scalars and points are host memory and len(dst) must equal
// len(scalars); an implementation may split a long call into chunks that
// fit its memory, so the caller never sizes anything to the device. The
// call returns when dst is written. Cancelling ctx stops it between chunks.
type FixedBase interface {
	// MulGeneratorG1 sets dst[i] = scalars[i]·g1 (scalars in Montgomery
	// form).
	MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error
	// MulGeneratorG2 sets dst[i] = scalars[i]·g2.
	MulGeneratorG2(ctx context.Context, dst []curve.G2Affine, scalars []fr.Element) error
}
