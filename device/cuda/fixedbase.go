//go:build cuda

package cuda

import (
	"context"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
)

var _ device.FixedBase = (*cudaStream)(nil)

// MulGeneratorG1 runs the fixed-base kernels (package cuda, csrc/fixed.cu).
func (s *cudaStream) MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error {
	if err := s.s.MulGeneratorG1(ctx, dst, scalars); err != nil {
		return cudaErr("g1 generator multiplication", err)
	}
	return nil
}

// MulGeneratorG2 is MulGeneratorG1 over G2.
func (s *cudaStream) MulGeneratorG2(ctx context.Context, dst []curve.G2Affine, scalars []fr.Element) error {
	if err := s.s.MulGeneratorG2(ctx, dst, scalars); err != nil {
		return cudaErr("g2 generator multiplication", err)
	}
	return nil
}
