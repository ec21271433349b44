package bls12381

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
)

// domainSlice returns the first domain.Cardinality scalars of v.
func (s *cpuStream) domainSlice(what string, v device.Vector, domain *fft.Domain) ([]fr.Element, error) {
	cv, err := s.vector(v)
	if err != nil {
		return nil, err
	}
	n := domain.Cardinality
	if n == 0 || n&(n-1) != 0 {
		return nil, fmt.Errorf("cpu device %d: %s: domain of %d is not a power of two", s.dev.index, what, n)
	}
	if uint64(len(cv.data)) < n {
		return nil, fmt.Errorf("cpu device %d: %s: vector of %d scalars for a domain of %d", s.dev.index, what, len(cv.data), n)
	}
	return cv.data[:n], nil
}

func nttOptions(coset bool) []fft.Option {
	if coset {
		return []fft.Option{fft.OnCoset()}
	}
	return nil
}

func (s *cpuStream) FFT(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	x, err := s.domainSlice("fft", v, domain)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	domain.FFT(x, dec, nttOptions(coset)...)
	return nil
}

func (s *cpuStream) FFTInverse(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	x, err := s.domainSlice("inverse fft", v, domain)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	domain.FFTInverse(x, dec, nttOptions(coset)...)
	return nil
}

func (s *cpuStream) BitReverse(ctx context.Context, v device.Vector, n int) error {
	cv, err := s.vector(v)
	if err != nil {
		return err
	}
	if n <= 0 || n&(n-1) != 0 || n > len(cv.data) {
		return fmt.Errorf("cpu device %d: bit reverse of %d scalars in a vector of %d (want a power of two that fits)", s.dev.index, n, len(cv.data))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fft.BitReverse(cv.data[:n])
	return nil
}

// operands checks the vectors of an element-wise operation: all of the
// stream's backend, none freed, all of one length.
func (s *cpuStream) operands(what string, vs ...device.Vector) ([][]fr.Element, error) {
	out := make([][]fr.Element, len(vs))
	for i, v := range vs {
		cv, err := s.vector(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if i > 0 && len(cv.data) != len(out[0]) {
			return nil, fmt.Errorf("cpu device %d: %s: vectors of %d and %d scalars", s.dev.index, what, len(out[0]), len(cv.data))
		}
		out[i] = cv.data
	}
	return out, nil
}

// binary runs dst[i] = op(a[i], b[i]) over the machine's cores.
func (s *cpuStream) binary(ctx context.Context, what string, dst, a, b device.Vector, op func(z, x, y *fr.Element)) error {
	v, err := s.operands(what, dst, a, b)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	z, x, y := v[0], v[1], v[2]
	parallelize(len(z), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			op(&z[i], &x[i], &y[i])
		}
	})
	return nil
}

// constant runs dst[i] = op(a[i], c) over the machine's cores.
func (s *cpuStream) constant(ctx context.Context, what string, dst, a device.Vector, c fr.Element, op func(z, x, c *fr.Element)) error {
	v, err := s.operands(what, dst, a)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	z, x := v[0], v[1]
	parallelize(len(z), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			op(&z[i], &x[i], &c)
		}
	})
	return nil
}

func (s *cpuStream) Mul(ctx context.Context, dst, a, b device.Vector) error {
	return s.binary(ctx, "mul", dst, a, b, func(z, x, y *fr.Element) { z.Mul(x, y) })
}

func (s *cpuStream) Add(ctx context.Context, dst, a, b device.Vector) error {
	return s.binary(ctx, "add", dst, a, b, func(z, x, y *fr.Element) { z.Add(x, y) })
}

func (s *cpuStream) Sub(ctx context.Context, dst, a, b device.Vector) error {
	return s.binary(ctx, "sub", dst, a, b, func(z, x, y *fr.Element) { z.Sub(x, y) })
}

func (s *cpuStream) Scale(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.constant(ctx, "scale", dst, a, c, func(z, x, c *fr.Element) { z.Mul(x, c) })
}

func (s *cpuStream) AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.constant(ctx, "add scalar", dst, a, c, func(z, x, c *fr.Element) { z.Add(x, c) })
}
