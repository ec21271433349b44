// Package bls12381 is the kernel-span decorator (package device/traced's
// contract) of BLS12-381 streams. Package device/traced/bn254 is its
// generated BN254 copy.
package bls12381

import (
	"context"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/traced"
)

// Stream is a cdev.Stream whose operations open kernel spans. The
// stream it decorates stays reachable through Unwrap (cdev.As), for
// Timer and family capabilities.
type Stream struct {
	cdev.Stream
	dev int
}

// New decorates st, a stream of device dev (the index recorded as
// prooflane.device). Decorating a decorated stream returns it unchanged.
func New(st cdev.Stream, dev int) *Stream {
	if t, ok := st.(*Stream); ok {
		return t
	}
	return &Stream{Stream: st, dev: dev}
}

// Unwrap returns the decorated stream.
func (s *Stream) Unwrap() cdev.Stream { return s.Stream }

// Kernel runs f under one kernel span named name, with f's operations on
// st (traced or not) inside it, timed together: with the device's clock
// when st or a stream it decorates is a device.Timer, else the wall
// clock. The span's prooflane.device is New's dev (-1 when st is not from
// New). An error of f is returned wrapped with name, whether or not
// tracing is on.
func Kernel(ctx context.Context, st cdev.Stream, name string, f func(context.Context) error) error {
	dev := -1
	if t, ok := st.(*Stream); ok {
		dev = t.dev
	}
	if err := span(ctx, st, dev, name, true, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// traces reports whether an operation opens its own span
// (traced.Traces).
func (s *Stream) traces(ctx context.Context) bool { return traced.Traces(ctx) }

// span runs f under a kernel span (traced.Span), timed by st's Timer
// when it or a stream it decorates has one.
func span(ctx context.Context, st cdev.Stream, dev int, name string, group bool, f func(context.Context) error) error {
	t, _ := cdev.As[device.Timer](st)
	return traced.Span(ctx, t, dev, name, group, f)
}

func (s *Stream) FFT(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	if !s.traces(ctx) {
		return s.Stream.FFT(ctx, v, domain, dec, coset)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelFFT, false, func(ctx context.Context) error { return s.Stream.FFT(ctx, v, domain, dec, coset) })
}

func (s *Stream) FFTInverse(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	if !s.traces(ctx) {
		return s.Stream.FFTInverse(ctx, v, domain, dec, coset)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelFFTInverse, false, func(ctx context.Context) error { return s.Stream.FFTInverse(ctx, v, domain, dec, coset) })
}

func (s *Stream) BitReverse(ctx context.Context, v device.Vector, n int) error {
	if !s.traces(ctx) {
		return s.Stream.BitReverse(ctx, v, n)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelBitReverse, false, func(ctx context.Context) error { return s.Stream.BitReverse(ctx, v, n) })
}

func (s *Stream) Mul(ctx context.Context, dst, a, b device.Vector) error {
	if !s.traces(ctx) {
		return s.Stream.Mul(ctx, dst, a, b)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelMul, false, func(ctx context.Context) error { return s.Stream.Mul(ctx, dst, a, b) })
}

func (s *Stream) Add(ctx context.Context, dst, a, b device.Vector) error {
	if !s.traces(ctx) {
		return s.Stream.Add(ctx, dst, a, b)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelAdd, false, func(ctx context.Context) error { return s.Stream.Add(ctx, dst, a, b) })
}

func (s *Stream) Sub(ctx context.Context, dst, a, b device.Vector) error {
	if !s.traces(ctx) {
		return s.Stream.Sub(ctx, dst, a, b)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelSub, false, func(ctx context.Context) error { return s.Stream.Sub(ctx, dst, a, b) })
}

func (s *Stream) Scale(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	if !s.traces(ctx) {
		return s.Stream.Scale(ctx, dst, a, c)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelScale, false, func(ctx context.Context) error { return s.Stream.Scale(ctx, dst, a, c) })
}

func (s *Stream) AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	if !s.traces(ctx) {
		return s.Stream.AddScalar(ctx, dst, a, c)
	}
	return span(ctx, s.Stream, s.dev, traced.KernelAddScalar, false, func(ctx context.Context) error { return s.Stream.AddScalar(ctx, dst, a, c) })
}

func (s *Stream) MSMG1(ctx context.Context, bases device.G1Bases, scalars device.Vector, n int) (curve.G1Jac, error) {
	if !s.traces(ctx) {
		return s.Stream.MSMG1(ctx, bases, scalars, n)
	}
	var r curve.G1Jac
	err := span(ctx, s.Stream, s.dev, traced.KernelMSMG1, false, func(ctx context.Context) (err error) {
		r, err = s.Stream.MSMG1(ctx, bases, scalars, n)
		return err
	})
	return r, err
}

func (s *Stream) MSMG2(ctx context.Context, bases device.G2Bases, scalars device.Vector, n int) (curve.G2Jac, error) {
	if !s.traces(ctx) {
		return s.Stream.MSMG2(ctx, bases, scalars, n)
	}
	var r curve.G2Jac
	err := span(ctx, s.Stream, s.dev, traced.KernelMSMG2, false, func(ctx context.Context) (err error) {
		r, err = s.Stream.MSMG2(ctx, bases, scalars, n)
		return err
	})
	return r, err
}

func (s *Stream) SumG1(ctx context.Context, bases device.G1Bases, indices []int32) (curve.G1Jac, error) {
	if !s.traces(ctx) {
		return s.Stream.SumG1(ctx, bases, indices)
	}
	var r curve.G1Jac
	err := span(ctx, s.Stream, s.dev, traced.KernelSumG1, false, func(ctx context.Context) (err error) {
		r, err = s.Stream.SumG1(ctx, bases, indices)
		return err
	})
	return r, err
}

func (s *Stream) SumG2(ctx context.Context, bases device.G2Bases, indices []int32) (curve.G2Jac, error) {
	if !s.traces(ctx) {
		return s.Stream.SumG2(ctx, bases, indices)
	}
	var r curve.G2Jac
	err := span(ctx, s.Stream, s.dev, traced.KernelSumG2, false, func(ctx context.Context) (err error) {
		r, err = s.Stream.SumG2(ctx, bases, indices)
		return err
	})
	return r, err
}
