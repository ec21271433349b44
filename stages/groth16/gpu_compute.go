package groth16

import (
	"context"
	"fmt"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/groth16/device"
)

// gpuCompute runs H and the G1 MSMs on the partition's device.
type gpuCompute struct{}

const tracerName = "github.com/prooflane/prooflane/stages/groth16"

// kernel runs f, which queues work on st, under a kernel span named name,
// and records the work's device time (wall time when st cannot time it).
func kernel(ctx context.Context, st device.Stream, dev int, name string, f func(context.Context) error) error {
	tr := trace.SpanFromContext(ctx).TracerProvider().Tracer(tracerName)
	ctx, span := tr.Start(ctx, name, trace.WithAttributes(
		pl.KeyKind.String(pl.KindKernel),
		pl.KeyKernel.String(name),
		pl.KeyDevice.Int(dev),
	))
	defer span.End()
	start := time.Now()
	var gpu time.Duration
	timed := false
	var err error
	if t, ok := st.(device.Timer); ok {
		gpu, timed, err = t.Time(func() error { return f(ctx) })
	} else {
		err = f(ctx)
	}
	source := "device"
	if !timed {
		gpu, source = time.Since(start), "wall"
	}
	span.SetAttributes(pl.KeyGPUTimeMS.Float64(float64(gpu.Microseconds())/1000), pl.KeyGPUTimeSource.String(source))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (gpuCompute) Run(ctx context.Context, in *stages.Input) (_ any, err error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	buf, err := stages.Get[*DeviceBuffers](in, TypeDeviceBuffers)
	if err != nil {
		return nil, err
	}
	if buf.Stream == nil {
		return nil, fmt.Errorf("partition %d: device buffers already consumed (stage %q run twice?)", in.Partition, in.Stage)
	}
	// Buffers that still hold their host vectors (vram_stage deferred the
	// upload) can be uploaded again: an out-of-memory error then frees the
	// device vectors, keeps the stream and the host vectors, and is
	// retryable. Otherwise the vectors are gone after a failure (ComputeH
	// clobbers them), so every error frees everything and is final.
	rerunnable := buf.host != nil
	defer func() {
		if err != nil {
			err = fmt.Errorf("partition %d device %d: %w", in.Partition, buf.Device, err)
		}
		if err != nil && rerunnable && isOOM(err) {
			buf.dropVectors()
			buf.Deferred = true
			err = stages.Retryable(err)
			return
		}
		buf.free()
	}()
	n := int(j.PK.Domain.Cardinality)
	if buf.Deferred {
		err := kernel(ctx, buf.Stream, buf.Device, "upload", func(ctx context.Context) error {
			return buf.upload(ctx, buf.host, n)
		})
		if err != nil {
			return nil, err
		}
		buf.Deferred = false
	}
	st, b, dev := buf.Stream, buf.Bases, buf.Device
	out := &G1MSMs{}
	steps := []struct {
		name string
		f    func(context.Context) error
	}{
		{"ntt_h", func(ctx context.Context) error {
			if err := st.ComputeH(ctx, buf.ABC[0], buf.ABC[1], buf.ABC[2], &j.PK.Domain); err != nil {
				return err
			}
			buf.res.free(buf.ABC[1])
			buf.res.free(buf.ABC[2])
			buf.ABC[1], buf.ABC[2] = nil, nil
			return nil
		}},
		{"msm_a", msm(st, b.A, buf.WA, buf.WA.Len(), &out.A)},
		{"msm_b1", msm(st, b.B, buf.WB, buf.WB.Len(), &out.B1)},
		{"msm_k", msm(st, b.K, buf.WK, buf.WK.Len(), &out.K)},
		{"msm_h", msm(st, b.Z, buf.ABC[0], n-1, &out.H)},
		{"batch_add", func(ctx context.Context) error {
			for _, x := range []struct {
				bases   device.G1Bases
				indices []int32
				dst     *curve.G1Jac
			}{{b.A, buf.OnesA, &out.A}, {b.B, buf.OnesB, &out.B1}, {b.K, buf.OnesK, &out.K}} {
				if len(x.indices) == 0 {
					continue
				}
				s, err := st.SumG1(ctx, x.bases, x.indices)
				if err != nil {
					return err
				}
				x.dst.AddAssign(&s)
			}
			return nil
		}},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := kernel(ctx, st, dev, s.name, s.f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// msm returns a step computing MSMG1(bases, v, n) into dst.
func msm(st device.Stream, bases device.G1Bases, v device.Vector, n int, dst *curve.G1Jac) func(context.Context) error {
	return func(ctx context.Context) error {
		r, err := st.MSMG1(ctx, bases, v, n)
		if err != nil {
			return err
		}
		dst.AddAssign(&r)
		return nil
	}
}
