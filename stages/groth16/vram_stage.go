package groth16

import (
	"context"
	"errors"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/groth16/device"
)

// vramStage puts a partition's vectors on its device.
type vramStage struct{}

func isOOM(err error) bool { return errors.Is(err, device.ErrOutOfMemory) }

// bases makes the proving key's G1 vectors resident on dev (a no-op after
// the first partition of a key set).
func (j *Job) bases(dev device.Device) (*Bases, error) {
	var b Bases
	var err error
	pk := j.PK
	for _, x := range []struct {
		dst  *device.G1Bases
		name string
		pts  []curve.G1Affine
	}{
		{&b.A, "g1.a", pk.G1.A},
		{&b.B, "g1.b", pk.G1.B},
		{&b.K, "g1.k", pk.G1.K},
		{&b.Z, "g1.z", pk.G1.Z},
	} {
		if *x.dst, err = dev.LoadG1(j.BasesKey+"/"+x.name, x.pts); err != nil {
			return nil, fmt.Errorf("load %s bases: %w", x.name, err)
		}
	}
	return &b, nil
}

func (vramStage) Run(ctx context.Context, in *stages.Input) (_ any, err error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	mi, err := stages.Get[*MSMInputs](in, TypeMSMInputs)
	if err != nil {
		return nil, err
	}
	idx, dev, err := j.device(in)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("partition %d device %d: %w", in.Partition, idx, err)
			if isOOM(err) {
				err = stages.Retryable(err)
			}
		}
	}()
	bases, err := j.bases(dev)
	if err != nil {
		return nil, err
	}
	st, err := dev.NewStream()
	if err != nil {
		return nil, fmt.Errorf("new stream: %w", err)
	}
	buf := newDeviceBuffers(idx, st, bases)
	buf.OnesA, buf.OnesB, buf.OnesK = mi.OnesA, mi.OnesB, mi.OnesK
	defer func() {
		if err != nil {
			buf.free()
		}
	}()
	n := int(j.PK.Domain.Cardinality)
	sol := mi.Solution
	uploads := []struct {
		dst  *device.Vector
		name string
		len  int
		src  []fr.Element
		form device.Form
	}{
		{&buf.ABC[0], "a", n, sol.A, device.FormMontgomery},
		{&buf.ABC[1], "b", n, sol.B, device.FormMontgomery},
		{&buf.ABC[2], "c", n, sol.C, device.FormMontgomery},
		{&buf.WA, "wA", len(mi.A), mi.A, mi.Form},
		{&buf.WB, "wB", len(mi.B), mi.B, mi.Form},
		{&buf.WK, "wK", len(mi.K), mi.K, mi.Form},
	}
	for _, u := range uploads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(u.src) > u.len {
			return nil, fmt.Errorf("vector %s: %d scalars for %d slots", u.name, len(u.src), u.len)
		}
		v, err := st.Alloc(u.len)
		if err != nil {
			return nil, fmt.Errorf("alloc %s (%d scalars): %w", u.name, u.len, err)
		}
		*u.dst = v
		buf.res.hold(v)
		if err := st.Upload(v, u.src, u.form); err != nil {
			return nil, fmt.Errorf("upload %s: %w", u.name, err)
		}
	}
	if err := st.Sync(); err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	return buf, nil
}
