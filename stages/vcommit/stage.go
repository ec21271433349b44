package vcommit

import (
	"context"
	"errors"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages"
)

// Factories returns the family's stage types.
func Factories() []stages.Factory {
	return []stages.Factory{{
		Type:    TypeNameCommit,
		Doc:     "commits to the partition's scalar vector: one G1 MSM on the device against the key's resident bases",
		Output:  TypeCommitment,
		Device:  true,
		Busy:    true,
		Payload: "*vcommit.Job (the key and the seed; prooflane prove --pipeline vcommit builds it)",
		New:     func(stages.Config) (stages.Stage, error) { return &commit{}, nil },
	}}
}

// commit is vcommit.commit: upload the partition's vector, MSM against the
// key's bases (made resident on the device by the first partition of a key;
// later ones find them there), return the commitment.
type commit struct{ be device.Backend }

// Start keeps the engine's backend, on which the stage works.
func (s *commit) Start(_ context.Context, h stages.Host) error {
	if h == nil || h.Backend() == nil {
		return errors.New("vcommit.commit: no device backend: the engine lends its stages one (runtime.Options.Backend)")
	}
	s.be = h.Backend()
	return nil
}

func (s *commit) Run(ctx context.Context, in *stages.Input) (any, error) {
	job, ok := in.Job.(*Job)
	if !ok || job == nil || job.Key == nil {
		return nil, fmt.Errorf("stage %q partition %d: job payload is %T, want *vcommit.Job", in.Stage, in.Partition, in.Job)
	}
	if s.be == nil {
		return nil, fmt.Errorf("stage %q partition %d: not started with a device backend", in.Stage, in.Partition)
	}
	dev, err := s.be.Device(max(in.Device, 0))
	if err != nil {
		return nil, fmt.Errorf("stage %q partition %d: %w", in.Stage, in.Partition, err)
	}
	bases, err := dev.LoadG1(job.Key.Name, job.Key.Bases)
	if err != nil {
		return nil, fmt.Errorf("stage %q partition %d: load bases %s: %w", in.Stage, in.Partition, job.Key.Name, err)
	}
	scalars := job.Scalars(in.Partition)
	form := device.FormMontgomery
	if dev.WantsCanonical() {
		toCanonical(scalars)
		form = device.FormCanonical
	}
	st, err := dev.NewStream()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	v, err := st.Alloc(len(scalars))
	if err != nil {
		return nil, fmt.Errorf("stage %q partition %d: %w", in.Stage, in.Partition, err)
	}
	defer st.Free(v)
	if err := st.Upload(v, scalars, form); err != nil {
		return nil, err
	}
	jac, err := st.MSMG1(ctx, bases, v, len(scalars))
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

// toCanonical rewrites v in place from Montgomery to canonical form (the
// plain integer's little-endian limbs), for devices that want it.
func toCanonical(v []fr.Element) {
	for i := range v {
		v[i] = fr.Element(v[i].Bits())
	}
}
