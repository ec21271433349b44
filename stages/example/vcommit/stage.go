package vcommit

import (
	"context"
	"errors"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/stages"
)

// Factories returns the family's stage types: vcommit.scalars on the host,
// then vcommit.commit on the device.
func Factories() []stages.Factory {
	return []stages.Factory{{
		Type:    TypeNameScalars,
		Doc:     "derives the partition's scalar vector from the job's seed on the host, in the form its device wants",
		Output:  TypeScalars,
		Payload: payloadDoc,
		New:     func(stages.Config) (stages.Stage, error) { return &scalars{}, nil },
	}, {
		Type:    TypeNameCommit,
		Doc:     "commits to the partition's scalar vector: its upload and one G1 MSM on the device against the key's resident bases",
		Inputs:  []stages.DataType{TypeScalars},
		Output:  TypeCommitment,
		Device:  true,
		Busy:    true,
		Payload: payloadDoc,
		New:     func(stages.Config) (stages.Stage, error) { return &commit{}, nil },
	}}
}

const payloadDoc = "*vcommit.Job (the key and the seed; prooflane prove --pipeline vcommit builds it)"

// Vector is the scalars stage's output: a partition's scalar vector in the
// form its device wants, ready to upload.
type Vector struct {
	Scalars []fr.Element
	Form    device.Form
}

// backendRef is the engine's backend, kept when a stage starts; the
// engine owns it.
type backendRef struct{ be device.Backend }

// Start keeps the engine's backend, on which the stage works.
func (r *backendRef) Start(_ context.Context, h stages.Host) error {
	if h == nil || h.Backend() == nil {
		return errors.New("no device backend: the engine lends its stages one (runtime.Options.Backend)")
	}
	r.be = h.Backend()
	return nil
}

// begin returns the stage's job and the device in is placed on (device 0
// when unplaced), with errors naming stage and partition.
func (r *backendRef) begin(in *stages.Input) (*Job, cdev.Device, error) {
	job, ok := in.Job.(*Job)
	if !ok || job == nil || job.Key == nil {
		return nil, nil, fmt.Errorf("stage %q partition %d: job payload is %T, want *vcommit.Job", in.Stage, in.Partition, in.Job)
	}
	if r.be == nil {
		return nil, nil, fmt.Errorf("stage %q partition %d: not started with a device backend", in.Stage, in.Partition)
	}
	dev, err := cdev.Of(r.be, max(in.Device, 0))
	if err != nil {
		return nil, nil, fmt.Errorf("stage %q partition %d: %w", in.Stage, in.Partition, err)
	}
	return job, dev, nil
}

// scalars is vcommit.scalars: the host's share of a partition, its vector
// from the seed, converted to canonical form when the device wants it. It
// asks the device only how it wants scalars.
type scalars struct{ backendRef }

func (s *scalars) Run(ctx context.Context, in *stages.Input) (any, error) {
	job, dev, err := s.begin(in)
	if err != nil {
		return nil, err
	}
	v := &Vector{Scalars: job.Scalars(in.Partition), Form: device.FormMontgomery}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dev.WantsCanonical() {
		toCanonical(v.Scalars)
		v.Form = device.FormCanonical
	}
	return v, nil
}

// commit is vcommit.commit: upload the partition's vector, MSM against the
// key's bases (made resident on the device by the first partition of a key;
// later ones find them there), return the commitment. It does no host
// work on the vector.
type commit struct{ backendRef }

func (s *commit) Run(ctx context.Context, in *stages.Input) (any, error) {
	job, dev, err := s.begin(in)
	if err != nil {
		return nil, err
	}
	vec, err := stages.Get[*Vector](in, TypeScalars)
	if err != nil {
		return nil, err
	}
	if vec == nil || len(vec.Scalars) != len(job.Key.Bases) {
		return nil, fmt.Errorf("stage %q partition %d: a vector of %d scalars for key %s of %d bases", in.Stage, in.Partition, vecLen(vec), job.Key.Name, len(job.Key.Bases))
	}
	bases, err := dev.LoadG1(job.Key.Name, job.Key.Bases)
	if err != nil {
		return nil, fmt.Errorf("stage %q partition %d: load bases %s: %w", in.Stage, in.Partition, job.Key.Name, err)
	}
	st, err := dev.NewStream()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	v, err := st.Alloc(len(vec.Scalars))
	if err != nil {
		return nil, fmt.Errorf("stage %q partition %d: %w", in.Stage, in.Partition, err)
	}
	defer st.Free(v)
	if err := st.Upload(v, vec.Scalars, vec.Form); err != nil {
		return nil, err
	}
	jac, err := st.MSMG1(ctx, bases, v, len(vec.Scalars))
	if err != nil {
		return nil, fmt.Errorf("stage %q partition %d: msm: %w", in.Stage, in.Partition, err)
	}
	if err := st.Sync(); err != nil {
		return nil, err
	}
	var out curve.G1Affine
	out.FromJacobian(&jac)
	return &out, nil
}

func vecLen(v *Vector) int {
	if v == nil {
		return 0
	}
	return len(v.Scalars)
}

// toCanonical rewrites v in place from Montgomery to canonical form (the
// plain integer's little-endian limbs), for devices that want it.
func toCanonical(v []fr.Element) {
	for i := range v {
		v[i] = fr.Element(v[i].Bits())
	}
}
