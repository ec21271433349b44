package groth16

import (
	"context"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	"github.com/prooflane/prooflane/stages"
)

// gpuCompute runs H and the G1 MSMs on the partition's device.
type gpuCompute struct{}

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
	// Every step runs under one kernel span of its name (traced.Kernel);
	// the operations inside a step open no spans of their own.
	st, b := traced.New(buf.Stream, buf.Device), buf.Bases
	if buf.Deferred {
		err := traced.Kernel(ctx, st, "upload", func(ctx context.Context) error {
			return buf.upload(ctx, buf.host, n)
		})
		if err != nil {
			return nil, err
		}
		buf.Deferred = false
	}
	out := &G1MSMs{Commitments: buf.Commitments}
	type step struct {
		name string
		f    func(context.Context) error
	}
	steps := []step{
		{"ntt_h", func(ctx context.Context) error {
			if err := ComputeH(ctx, st, buf.ABC[0], buf.ABC[1], buf.ABC[2], &j.PK.Domain); err != nil {
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
	}
	if buf.WP != nil {
		steps = append(steps, step{"msm_pok", msm(st, b.PoK, buf.WP, buf.WP.Len(), &out.PoK)})
	}
	// The ones the host listed (prep_msm; a device that SumsUnits finds
	// them in its MSMs and gets none).
	if len(buf.OnesA)+len(buf.OnesB)+len(buf.OnesK) > 0 {
		steps = append(steps, step{"batch_add", func(ctx context.Context) error {
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
		}})
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := traced.Kernel(ctx, st, s.name, s.f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// msm returns a step computing MSMG1(bases, v, n) into dst.
func msm(st cdev.Stream, bases device.G1Bases, v device.Vector, n int, dst *curve.G1Jac) func(context.Context) error {
	return func(ctx context.Context) error {
		r, err := st.MSMG1(ctx, bases, v, n)
		if err != nil {
			return err
		}
		dst.AddAssign(&r)
		return nil
	}
}
