// Package traced decorates a device stream with kernel spans, so that every
// family's device work is traced the same way with no tracing code in its
// stages.
//
// The contract:
//   - A stream from New (package device/traced/bls12381 for BLS12-381
//     streams, device/traced/bn254 for BN254 ones) opens one span of kind kernel (prooflane.kind =
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
	"time"

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

// grouped marks a context inside a Kernel span.
type grouped struct{}

// Traces reports whether an operation opens its own span: tracing is on
// and the operation is not part of a Kernel group. A curve's stream
// checks it before building its closures, so that it allocates nothing
// when it is false.
func Traces(ctx context.Context) bool {
	return ctx.Value(grouped{}) == nil && trace.SpanFromContext(ctx).IsRecording()
}

// Span runs f under a kernel span named name (when the parent span
// records) of device dev, timed by t when it is not nil and by the wall
// clock otherwise; with group, the operations f runs open no spans of
// their own (Kernel).
func Span(ctx context.Context, t device.Timer, dev int, name string, group bool, f func(context.Context) error) error {
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
	if t != nil {
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
