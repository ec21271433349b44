package groth16

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"go.opentelemetry.io/otel/trace"

	cpu "github.com/prooflane/prooflane/device/cpu/bls12381"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	"github.com/prooflane/prooflane/stages"
)

// bG2MSM computes the G2 MSM of B.
type bG2MSM struct {
	cfg G2Config
	dev backendRef
}

func (s *bG2MSM) Run(ctx context.Context, in *stages.Input) (any, error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	mi, err := stages.Get[*MSMInputs](in, TypeMSMInputs)
	if err != nil {
		return nil, err
	}
	if s.cfg.On == "device" {
		return s.onDevice(ctx, in, j, mi)
	}
	pts := j.PK.G2.B
	var res curve.G2Jac
	if _, err := res.MultiExp(pts, mi.BMont, ecc.MultiExpConfig{NbTasks: cpu.G2Tasks()}); err != nil {
		return nil, fmt.Errorf("partition %d: g2 msm: %w", in.Partition, err)
	}
	ones := cpu.SumG2Affine(pts, mi.OnesB)
	res.AddAssign(&ones)
	return &G2MSM{B: res}, ctx.Err()
}

func (s *bG2MSM) onDevice(ctx context.Context, in *stages.Input, j *Job, mi *MSMInputs) (any, error) {
	idx, dev, err := s.dev.device(in)
	if err != nil {
		return nil, err
	}
	fail := func(what string, err error) error {
		err = fmt.Errorf("partition %d device %d: g2 msm: %s: %w", in.Partition, idx, what, err)
		if isOOM(err) {
			err = stages.Retryable(err)
		}
		return err
	}
	bases, notes, err := j.g2Bases(dev, s.cfg.Bases, s.cfg.Tables)
	for _, n := range notes {
		trace.SpanFromContext(ctx).AddEvent(n)
	}
	if err != nil {
		// Not retryable: bases that do not fit now will not fit later.
		return nil, fmt.Errorf("partition %d device %d: g2 msm: %w", in.Partition, idx, err)
	}
	raw, err := dev.NewStream()
	if err != nil {
		return nil, fail("new stream", err)
	}
	defer raw.Close()
	// its MSM and sum as kernel spans (msm_g2, and sum_g2 for listed
	// ones), so that analyze shows this stage's device time beside
	// gpu_compute's
	st := traced.New(raw, idx)
	v, err := st.Alloc(len(mi.B))
	if err != nil {
		return nil, fail("alloc", err)
	}
	defer st.Free(v)
	if err := st.Upload(v, mi.B, mi.Form); err != nil {
		return nil, fail("upload", err)
	}
	res, err := st.MSMG2(ctx, bases, v, len(mi.B))
	if err != nil {
		return nil, fail("msm", err)
	}
	// The ones prep_msm listed: none for a device that SumsUnits, whose
	// MSM sums them itself.
	if len(mi.OnesB) > 0 {
		ones, err := st.SumG2(ctx, bases, mi.OnesB)
		if err != nil {
			return nil, fail("batch add", err)
		}
		res.AddAssign(&ones)
	}
	return &G2MSM{B: res}, nil
}
