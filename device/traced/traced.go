// Package traced decorates a device stream with kernel spans, so that every
// family's device work is traced the same way with no tracing code in its
// stages.
//
// The contract:
//   - A stream from New opens one span of kind kernel (prooflane.kind =
//     kernel) per NTT, bit reversal, element-wise operation, MSM and batch
//     addition, a child of the span in the call's context, named after the
//     operation ("fft", "msm_g1", ...; the Kernel* constants), with
//     prooflane.kernel (that name), prooflane.device, prooflane.gpu_time_ms
//     and prooflane.gpu_time_source: "device" when the stream times its own
//     work (device.Timer: the call then waits for that work) and "wall"
//     otherwise. A failed operation marks its span with the error.
//   - Kernel groups operations under one span of the caller's name (the
//     Groth16 stages' "ntt_h", "msm_a", "batch_add"): the operations it
//     runs open no spans of their own, and capabilities reached through
//     device.As (which bypass the decorator) are traced by running them
//     inside Kernel.
//   - Memory operations (Alloc, Free, Upload, Download, Sync, Close) are
//     not traced; group them with Kernel to trace them.
//   - Tracing costs nothing when it is off: when the span in the context
//     is not recording (a noop tracer provider, or a sampled-out trace),
//     an operation is the decorated stream's call with no span, no timing
//     and no allocation.
//   - The tracer comes from the span in the context (the runtime's stage
//     span), never from the global provider.
package traced

import (
	"context"
	"fmt"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/device"
	pl "github.com/prooflane/prooflane/otel/semconv"
)

// TracerName is the instrumentation scope of kernel spans.
const TracerName = "github.com/prooflane/prooflane/device/traced"

// The names of the spans New's stream opens, one per operation.
const (
	KernelFFT        = "fft"
	KernelFFTInverse = "fft_inverse"
	KernelBitReverse = "bit_reverse"
	KernelMul        = "vec_mul"
	KernelAdd        = "vec_add"
	KernelSub        = "vec_sub"
	KernelScale      = "vec_scale"
	KernelAddScalar  = "vec_add_scalar"
	KernelMSMG1      = "msm_g1"
	KernelMSMG2      = "msm_g2"
	KernelSumG1      = "sum_g1"
	KernelSumG2      = "sum_g2"
)

// Stream is a device.Stream whose operations open kernel spans. The
// stream it decorates stays reachable through Unwrap (device.As), for
// Timer and family capabilities.
type Stream struct {
	device.Stream
	dev int
}

// New decorates st, a stream of device dev (the index recorded as
// prooflane.device). Decorating a decorated stream returns it unchanged.
func New(st device.Stream, dev int) *Stream {
	if t, ok := st.(*Stream); ok {
		return t
	}
	return &Stream{Stream: st, dev: dev}
}

// Unwrap returns the decorated stream.
func (s *Stream) Unwrap() device.Stream { return s.Stream }

// grouped marks a context inside a Kernel span.
type grouped struct{}

// Kernel runs f under one kernel span named name, with f's operations on
// st (traced or not) inside it, timed together: with the device's clock
// when st or a stream it decorates is a device.Timer, else the wall
// clock. The span's prooflane.device is New's dev (-1 when st is not from
// New). An error of f is returned wrapped with name, whether or not
// tracing is on.
func Kernel(ctx context.Context, st device.Stream, name string, f func(context.Context) error) error {
	dev := -1
	if t, ok := st.(*Stream); ok {
		dev = t.dev
	}
	if err := span(ctx, st, dev, name, true, f); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// traces reports whether an operation opens its own span: tracing is on
// and the operation is not part of a Kernel group. The operations check it
// before building their closures, so that they allocate nothing when it
// is false.
func (s *Stream) traces(ctx context.Context) bool {
	return ctx.Value(grouped{}) == nil && trace.SpanFromContext(ctx).IsRecording()
}

// span runs f under a kernel span (when the parent span records).
func span(ctx context.Context, st device.Stream, dev int, name string, group bool, f func(context.Context) error) error {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return f(ctx)
	}
	ctx, sp := parent.TracerProvider().Tracer(TracerName).Start(ctx, name, trace.WithAttributes(
		pl.KeyKind.String(pl.KindKernel),
		pl.KeyKernel.String(name),
		pl.KeyDevice.Int(dev),
	))
	defer sp.End()
	if group {
		ctx = context.WithValue(ctx, grouped{}, true)
	}
	start := time.Now()
	var gpu time.Duration
	timed := false
	var err error
	if t, ok := device.As[device.Timer](st); ok {
		gpu, timed, err = t.Time(func() error { return f(ctx) })
	} else {
		err = f(ctx)
	}
	source := "device"
	if !timed {
		gpu, source = time.Since(start), "wall"
	}
	sp.SetAttributes(pl.KeyGPUTimeMS.Float64(float64(gpu.Microseconds())/1000), pl.KeyGPUTimeSource.String(source))
	if err != nil {
		sp.RecordError(err)
		sp.SetStatus(codes.Error, err.Error())
	}
	return err
}

func (s *Stream) FFT(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	if !s.traces(ctx) {
		return s.Stream.FFT(ctx, v, domain, dec, coset)
	}
	return span(ctx, s.Stream, s.dev, KernelFFT, false, func(ctx context.Context) error { return s.Stream.FFT(ctx, v, domain, dec, coset) })
}

func (s *Stream) FFTInverse(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	if !s.traces(ctx) {
		return s.Stream.FFTInverse(ctx, v, domain, dec, coset)
	}
	return span(ctx, s.Stream, s.dev, KernelFFTInverse, false, func(ctx context.Context) error { return s.Stream.FFTInverse(ctx, v, domain, dec, coset) })
}

func (s *Stream) BitReverse(ctx context.Context, v device.Vector, n int) error {
	if !s.traces(ctx) {
		return s.Stream.BitReverse(ctx, v, n)
	}
	return span(ctx, s.Stream, s.dev, KernelBitReverse, false, func(ctx context.Context) error { return s.Stream.BitReverse(ctx, v, n) })
}

func (s *Stream) Mul(ctx context.Context, dst, a, b device.Vector) error {
	if !s.traces(ctx) {
		return s.Stream.Mul(ctx, dst, a, b)
	}
	return span(ctx, s.Stream, s.dev, KernelMul, false, func(ctx context.Context) error { return s.Stream.Mul(ctx, dst, a, b) })
}

func (s *Stream) Add(ctx context.Context, dst, a, b device.Vector) error {
	if !s.traces(ctx) {
		return s.Stream.Add(ctx, dst, a, b)
	}
	return span(ctx, s.Stream, s.dev, KernelAdd, false, func(ctx context.Context) error { return s.Stream.Add(ctx, dst, a, b) })
}

func (s *Stream) Sub(ctx context.Context, dst, a, b device.Vector) error {
	if !s.traces(ctx) {
		return s.Stream.Sub(ctx, dst, a, b)
	}
	return span(ctx, s.Stream, s.dev, KernelSub, false, func(ctx context.Context) error { return s.Stream.Sub(ctx, dst, a, b) })
}

func (s *Stream) Scale(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	if !s.traces(ctx) {
		return s.Stream.Scale(ctx, dst, a, c)
	}
	return span(ctx, s.Stream, s.dev, KernelScale, false, func(ctx context.Context) error { return s.Stream.Scale(ctx, dst, a, c) })
}

func (s *Stream) AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	if !s.traces(ctx) {
		return s.Stream.AddScalar(ctx, dst, a, c)
	}
	return span(ctx, s.Stream, s.dev, KernelAddScalar, false, func(ctx context.Context) error { return s.Stream.AddScalar(ctx, dst, a, c) })
}

func (s *Stream) MSMG1(ctx context.Context, bases device.G1Bases, scalars device.Vector, n int) (curve.G1Jac, error) {
	if !s.traces(ctx) {
		return s.Stream.MSMG1(ctx, bases, scalars, n)
	}
	var r curve.G1Jac
	err := span(ctx, s.Stream, s.dev, KernelMSMG1, false, func(ctx context.Context) (err error) {
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
	err := span(ctx, s.Stream, s.dev, KernelMSMG2, false, func(ctx context.Context) (err error) {
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
	err := span(ctx, s.Stream, s.dev, KernelSumG1, false, func(ctx context.Context) (err error) {
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
	err := span(ctx, s.Stream, s.dev, KernelSumG2, false, func(ctx context.Context) (err error) {
		r, err = s.Stream.SumG2(ctx, bases, indices)
		return err
	})
	return r, err
}
