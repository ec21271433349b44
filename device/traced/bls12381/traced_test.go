package bls12381_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	tcore "github.com/prooflane/prooflane/device/traced"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	pl "github.com/prooflane/prooflane/otel/semconv"
)

// recording returns a context under a recording parent span and the
// recorder of the spans ended under it.
func recording(t *testing.T) (context.Context, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	ctx, parent := tp.Tracer("test").Start(context.Background(), "stage")
	t.Cleanup(func() { parent.End() })
	return ctx, rec
}

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) attribute.Value {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func cpuStream(t *testing.T) (cdev.Device, cdev.Stream) {
	t.Helper()
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cdev.Of(be, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

func TestEveryOperationOpensOneKernelSpan(t *testing.T) {
	ctx, rec := recording(t)
	d, raw := cpuStream(t)
	st := traced.New(raw, 3)
	const n = 16
	x := make([]fr.Element, n)
	for i := range x {
		x[i].SetUint64(uint64(i + 1))
	}
	v, _ := st.Alloc(n)
	w, _ := st.Alloc(n)
	st.Upload(v, x, device.FormMontgomery)
	st.Upload(w, x, device.FormMontgomery)
	_, _, g1, g2 := curve.Generators()
	b1, _ := d.LoadG1("g1", []curve.G1Affine{g1, g1})
	b2, _ := d.LoadG2("g2", []curve.G2Affine{g2, g2})
	domain := fft.NewDomain(n)
	var c fr.Element
	c.SetUint64(7)
	ops := []struct {
		want string
		f    func() error
	}{
		{tcore.KernelFFT, func() error { return st.FFT(ctx, v, domain, fft.DIF, false) }},
		{tcore.KernelFFTInverse, func() error { return st.FFTInverse(ctx, v, domain, fft.DIT, true) }},
		{tcore.KernelBitReverse, func() error { return st.BitReverse(ctx, v, n) }},
		{tcore.KernelMul, func() error { return st.Mul(ctx, v, v, w) }},
		{tcore.KernelAdd, func() error { return st.Add(ctx, v, v, w) }},
		{tcore.KernelSub, func() error { return st.Sub(ctx, v, v, w) }},
		{tcore.KernelScale, func() error { return st.Scale(ctx, v, v, c) }},
		{tcore.KernelAddScalar, func() error { return st.AddScalar(ctx, v, v, c) }},
		{tcore.KernelMSMG1, func() error { _, err := st.MSMG1(ctx, b1, v, 2); return err }},
		{tcore.KernelMSMG2, func() error { _, err := st.MSMG2(ctx, b2, v, 2); return err }},
		{tcore.KernelSumG1, func() error { _, err := st.SumG1(ctx, b1, []int32{0, 1}); return err }},
		{tcore.KernelSumG2, func() error { _, err := st.SumG2(ctx, b2, []int32{1}); return err }},
	}
	for i, op := range ops {
		if err := op.f(); err != nil {
			t.Fatalf("%s: %v", op.want, err)
		}
		spans := rec.Ended()
		if len(spans) != i+1 {
			t.Fatalf("%s: %d spans ended, want %d", op.want, len(spans), i+1)
		}
		s := spans[i]
		if s.Name() != op.want || attr(s, pl.KeyKernel).AsString() != op.want {
			t.Errorf("span %q (kernel %q), want %q", s.Name(), attr(s, pl.KeyKernel).AsString(), op.want)
		}
		if attr(s, pl.KeyKind).AsString() != pl.KindKernel || attr(s, pl.KeyDevice).AsInt64() != 3 ||
			attr(s, pl.KeyGPUTimeSource).AsString() != "wall" || attr(s, pl.KeyGPUTimeMS).Type() != attribute.FLOAT64 {
			t.Errorf("%s: attributes %v", op.want, s.Attributes())
		}
	}
	// memory operations are not traced
	st.Free(v)
	if err := st.Sync(); err != nil || len(rec.Ended()) != len(ops) {
		t.Errorf("Free and Sync opened spans: %d spans", len(rec.Ended()))
	}
}

func TestKernelGroupsItsOperationsUnderOneSpanAndNamesItsError(t *testing.T) {
	ctx, rec := recording(t)
	_, raw := cpuStream(t)
	st := traced.New(raw, 0)
	v, _ := st.Alloc(8)
	err := traced.Kernel(ctx, st, "batch_add", func(ctx context.Context) error {
		if err := st.Add(ctx, v, v, v); err != nil {
			return err
		}
		return st.Mul(ctx, v, v, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if spans := rec.Ended(); len(spans) != 1 || spans[0].Name() != "batch_add" || attr(spans[0], pl.KeyKernel).AsString() != "batch_add" {
		t.Fatalf("spans %v, want one batch_add", names(spans))
	}
	w, _ := st.Alloc(4)
	err = traced.Kernel(ctx, st, "msm_a", func(ctx context.Context) error { return st.Mul(ctx, v, v, w) })
	if err == nil || !strings.HasPrefix(err.Error(), "msm_a: ") {
		t.Fatalf("error %v, want it prefixed with the kernel name", err)
	}
	spans := rec.Ended()
	if last := spans[len(spans)-1]; len(spans) != 2 || last.Status().Code != codes.Error {
		t.Errorf("spans %v; want a second one with an error status", names(spans))
	}
	// with tracing off the error is the same
	if err := traced.Kernel(context.Background(), st, "msm_a", func(ctx context.Context) error { return st.Mul(ctx, v, v, w) }); err == nil || !strings.HasPrefix(err.Error(), "msm_a: ") {
		t.Errorf("untraced error %v, want it prefixed with the kernel name", err)
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// nopStream does nothing, so that only the decorator's cost is measured.
type nopStream struct{ cdev.Stream }

func (nopStream) Mul(context.Context, device.Vector, device.Vector, device.Vector) error { return nil }
func (nopStream) MSMG1(context.Context, device.G1Bases, device.Vector, int) (curve.G1Jac, error) {
	return curve.G1Jac{}, nil
}

// timedStream is a nopStream with a device clock.
type timedStream struct{ nopStream }

func (timedStream) Time(f func() error) (time.Duration, bool, error) {
	return time.Millisecond, true, f()
}

func TestUntracedOperationsAllocateNothing(t *testing.T) {
	st := traced.New(nopStream{}, 0)
	for _, ctx := range []context.Context{
		context.Background(),
		func() context.Context { // a span from the noop provider: tracing off
			ctx, _ := noop.NewTracerProvider().Tracer("").Start(context.Background(), "stage")
			return ctx
		}(),
	} {
		allocs := testing.AllocsPerRun(100, func() {
			st.Mul(ctx, nil, nil, nil)
			st.MSMG1(ctx, nil, nil, 0)
		})
		if allocs != 0 {
			t.Errorf("%v allocations per untraced call, want 0", allocs)
		}
	}
}

func TestTheDeviceClockTimesKernelSpansThroughTheDecorator(t *testing.T) {
	ctx, rec := recording(t)
	st := traced.New(timedStream{}, 1)
	if _, ok := cdev.As[device.Timer](st); !ok {
		t.Fatal("cdev.As does not find the decorated stream's Timer")
	}
	if traced.New(st, 2) != st {
		t.Error("decorating a decorated stream wrapped it twice")
	}
	if err := st.Mul(ctx, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	s := rec.Ended()[0]
	if attr(s, pl.KeyGPUTimeSource).AsString() != "device" || attr(s, pl.KeyGPUTimeMS).AsFloat64() != 1 {
		t.Errorf("attributes %v, want 1 ms timed on the device", s.Attributes())
	}
	if err := errors.New("x"); traced.Kernel(ctx, st, "k", func(context.Context) error { return err }) == nil {
		t.Error("Kernel lost f's error")
	}
}
