package plonk

import (
	"context"
	"errors"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	"github.com/prooflane/prooflane/stages"
)

// onDevice is embedded by the stages that work on the device: Start keeps
// the engine's backend.
type onDevice struct {
	typ string
	be  device.Backend
}

// Start keeps the engine's backend, on which the stage works.
func (s *onDevice) Start(_ context.Context, h stages.Host) error {
	if h == nil || h.Backend() == nil {
		return fmt.Errorf("%s: no device backend: the engine lends its stages one (runtime.Options.Backend)", s.typ)
	}
	s.be = h.Backend()
	return nil
}

// work is one stage instance's device work: a traced stream on the
// partition's device and the vectors it allocated, all freed by close.
type work struct {
	where string // "stage \"x\" partition N", for errors
	dev   cdev.Device
	st    cdev.Stream
	vecs  map[device.Vector]bool
}

func (s *onDevice) open(in *stages.Input) (*work, error) {
	where := fmt.Sprintf("stage %q partition %d", in.Stage, in.Partition)
	if s.be == nil {
		return nil, fmt.Errorf("%s: not started with a device backend", where)
	}
	devIndex := max(in.Device, 0)
	dev, err := cdev.Of(s.be, devIndex)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	st, err := dev.NewStream()
	if err != nil {
		return nil, fmt.Errorf("%s: new stream: %w", where, err)
	}
	return &work{where: where, dev: dev, st: traced.New(st, devIndex), vecs: map[device.Vector]bool{}}, nil
}

// errf wraps err with the stage and partition; device out of memory is
// marked retryable.
func (w *work) errf(err error, format string, args ...any) error {
	err = fmt.Errorf("%s: %s: %w", w.where, fmt.Sprintf(format, args...), err)
	if errors.Is(err, device.ErrOutOfMemory) {
		return stages.Retryable(err)
	}
	return err
}

func (w *work) alloc(n int) (device.Vector, error) {
	v, err := w.st.Alloc(n)
	if err != nil {
		return nil, w.errf(err, "alloc")
	}
	w.vecs[v] = true
	return v, nil
}

// upload allocates a vector of size scalars and uploads src into it (the
// rest zero).
func (w *work) upload(src []fr.Element, size int) (device.Vector, error) {
	v, err := w.alloc(size)
	if err != nil {
		return nil, err
	}
	if err := w.st.Upload(v, src, device.FormMontgomery); err != nil {
		return nil, w.errf(err, "upload")
	}
	return v, nil
}

func (w *work) free(vs ...device.Vector) {
	for _, v := range vs {
		if w.vecs[v] {
			w.st.Free(v)
			delete(w.vecs, v)
		}
	}
}

// close frees what is left and closes the stream; its error is the
// stream's.
func (w *work) close() error {
	for v := range w.vecs {
		w.st.Free(v)
	}
	w.vecs = nil
	err := w.st.Sync()
	if cerr := w.st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return w.errf(err, "close stream")
	}
	return nil
}

// bases returns the key's SRS resident on the device: the canonical one,
// or the Lagrange one.
func (w *work) bases(k *Key, lagrange bool) (device.G1Bases, error) {
	name, pts := k.Name+"/g1", k.PK.Kzg.G1
	if lagrange {
		name, pts = k.Name+"/lagrange", k.PK.KzgLagrange.G1
	}
	b, err := w.dev.LoadG1(name, pts)
	if err != nil {
		return nil, w.errf(err, "load srs %s", name)
	}
	return b, nil
}

// commit is kzg.Commit on the device: the MSM of scalars with the first
// len(scalars) bases.
func (w *work) commit(ctx context.Context, bases device.G1Bases, scalars []fr.Element, what string) (curve.G1Affine, error) {
	var out curve.G1Affine
	if len(scalars) == 0 || len(scalars) > bases.Len() {
		return out, fmt.Errorf("%s: commit %s: %d scalars for %d bases", w.where, what, len(scalars), bases.Len())
	}
	src, form := scalars, device.FormMontgomery
	if w.dev.WantsCanonical() {
		src, form = make([]fr.Element, len(scalars)), device.FormCanonical
		for i := range scalars {
			src[i] = fr.Element(scalars[i].Bits())
		}
	}
	v, err := w.alloc(len(src))
	if err != nil {
		return out, err
	}
	defer w.free(v)
	if err := w.st.Upload(v, src, form); err != nil {
		return out, w.errf(err, "upload %s", what)
	}
	jac, err := w.st.MSMG1(ctx, bases, v, len(src))
	if err != nil {
		return out, w.errf(err, "msm %s", what)
	}
	out.FromJacobian(&jac)
	return out, nil
}
