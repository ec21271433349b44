//go:build cuda

package bls12381

import (
	"context"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cu "github.com/prooflane/prooflane/cuda"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

var _ cdev.FixedBase = (*cudaStream)(nil)

// MulGeneratorG1 runs the fixed-base kernels (package bls12381, csrc/fixed.cu).
func (s *cudaStream) MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error {
	if err := cu.BLS12381G1.MulGenerator(ctx, s.s, dst, scalars); err != nil {
		return cudaErr("g1 generator multiplication", err)
	}
	return nil
}

// MulGeneratorG2 is MulGeneratorG1 over G2.
func (s *cudaStream) MulGeneratorG2(ctx context.Context, dst []curve.G2Affine, scalars []fr.Element) error {
	if err := cu.BLS12381G2.MulGenerator(ctx, s.s, dst, scalars); err != nil {
		return cudaErr("g2 generator multiplication", err)
	}
	return nil
}
