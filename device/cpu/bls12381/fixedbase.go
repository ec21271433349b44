package bls12381

import (
	"context"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cdev "github.com/prooflane/prooflane/device/bls12381"
)

var _ cdev.FixedBase = (*cpuStream)(nil)

// fixedBaseChunk bounds the scalars of one gnark-crypto batch call: it
// allocates a Jacobian point and digits per scalar on top of the affine
// result, and chunks keep that transient memory at some 300 MiB (G2)
// however long the call.
var fixedBaseChunk = 1 << 20

// MulGeneratorG1 is gnark-crypto's BatchScalarMultiplicationG1 of the
// generator, a chunk at a time.
func (s *cpuStream) MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error {
	_, _, g1, _ := curve.Generators()
	return mulGenerator(ctx, s.dev.index, "g1", dst, scalars, func(sc []fr.Element) []curve.G1Affine {
		return curve.BatchScalarMultiplicationG1(&g1, sc)
	})
}

// MulGeneratorG2 is MulGeneratorG1 over G2.
func (s *cpuStream) MulGeneratorG2(ctx context.Context, dst []curve.G2Affine, scalars []fr.Element) error {
	_, _, _, g2 := curve.Generators()
	return mulGenerator(ctx, s.dev.index, "g2", dst, scalars, func(sc []fr.Element) []curve.G2Affine {
		return curve.BatchScalarMultiplicationG2(&g2, sc)
	})
}

func mulGenerator[P any](ctx context.Context, dev int, group string, dst []P, scalars []fr.Element, batch func([]fr.Element) []P) error {
	if len(dst) != len(scalars) {
		return fmt.Errorf("cpu device %d: %s generator multiplication: %d scalars into %d points", dev, group, len(scalars), len(dst))
	}
	for lo := 0; lo < len(scalars); lo += fixedBaseChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+fixedBaseChunk, len(scalars))
		copy(dst[lo:hi], batch(scalars[lo:hi]))
	}
	return nil
}
