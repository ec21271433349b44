//go:build cuda

package device

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/cuda"
)

// NewCUDA returns the backend over every CUDA device of the machine (the
// kernels of package cuda). It fails with an error wrapping ErrNoDevice
// when there is none.
func NewCUDA() (Backend, error) {
	infos, err := cuda.Devices()
	if err != nil {
		return nil, cudaErr("list devices", err)
	}
	b := &cudaBackend{}
	for _, in := range infos {
		d, err := cuda.Open(in.Index)
		if err != nil {
			b.Close()
			return nil, cudaErr(fmt.Sprintf("open device %d", in.Index), err)
		}
		b.devs = append(b.devs, &cudaDevice{d: d, name: in.Name})
	}
	return b, nil
}

// cudaErr wraps err so that errors.Is finds this package's sentinels too.
func cudaErr(what string, err error) error {
	switch {
	case errors.Is(err, cuda.ErrOutOfMemory):
		return fmt.Errorf("cuda backend: %s: %w: %w", what, ErrOutOfMemory, err)
	case errors.Is(err, cuda.ErrNoDevice):
		return fmt.Errorf("cuda backend: %s: %w: %w", what, ErrNoDevice, err)
	}
	return fmt.Errorf("cuda backend: %s: %w", what, err)
}

type cudaBackend struct {
	devs []*cudaDevice
}

func (b *cudaBackend) Name() string { return "cuda" }

func (b *cudaBackend) Devices() []Info {
	out := make([]Info, len(b.devs))
	for i, d := range b.devs {
		out[i] = d.Info()
	}
	return out
}

func (b *cudaBackend) Device(i int) (Device, error) {
	if i < 0 || i >= len(b.devs) {
		return nil, fmt.Errorf("cuda backend: device %d: %w (have %d)", i, ErrNoDevice, len(b.devs))
	}
	return b.devs[i], nil
}

func (b *cudaBackend) Close() error {
	var errs []error
	for _, d := range b.devs {
		if err := d.d.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

type cudaDevice struct {
	d    *cuda.Device
	name string
	mu   sync.Mutex
}

func (d *cudaDevice) Info() Info {
	in := Info{Index: d.d.Index(), Name: d.name}
	if di, err := d.d.Info(); err == nil {
		in.MemTotal, in.MemFree = di.MemTotal, di.MemFree
	}
	return in
}

// WantsCanonical is false: the MSM kernels read Montgomery scalars and
// convert them in registers, so the host need not convert.
func (d *cudaDevice) WantsCanonical() bool { return false }

type cudaG1 struct{ b *cuda.G1Bases }

func (g cudaG1) Len() int { return g.b.Len() }

type cudaG2 struct{ b *cuda.G2Bases }

func (g cudaG2) Len() int { return g.b.Len() }

func (d *cudaDevice) LoadG1(key string, points []curve.G1Affine) (G1Bases, error) {
	b, err := d.d.LoadG1(key, points)
	if err != nil {
		return nil, cudaErr("load g1", err) // the cuda error names the key and device
	}
	return cudaG1{b}, nil
}

func (d *cudaDevice) LoadG2(key string, points []curve.G2Affine) (G2Bases, error) {
	b, err := d.d.LoadG2(key, points)
	if err != nil {
		return nil, cudaErr("load g2", err) // the cuda error names the key and device
	}
	return cudaG2{b}, nil
}

func (d *cudaDevice) NewStream() (Stream, error) {
	s, err := d.d.NewStream()
	if err != nil {
		return nil, cudaErr("new stream", err)
	}
	return &cudaStream{s: s}, nil
}

type cudaVector struct{ v *cuda.Vector }

func (v cudaVector) Len() int { return v.v.Len() }

type cudaStream struct {
	s *cuda.Stream
	// start, end time Time's work; created on first use, closed with the
	// stream (a stream belongs to one worker at a time).
	start, end *cuda.Event
}

var _ Timer = (*cudaStream)(nil)

// Time brackets f's work with two CUDA events recorded on the stream and
// waits for the second one (cudaEventSynchronize: this stream's work
// only, never the whole device).
func (s *cudaStream) Time(f func() error) (time.Duration, bool, error) {
	if s.start == nil {
		var err error
		if s.start, err = s.s.Device().NewEvent(); err != nil {
			return 0, false, f()
		}
		if s.end, err = s.s.Device().NewEvent(); err != nil {
			s.start.Close()
			s.start = nil
			return 0, false, f()
		}
	}
	if err := s.s.Record(s.start); err != nil {
		return 0, false, f()
	}
	if err := f(); err != nil {
		return 0, false, err
	}
	// Errors from here on are the device's (the wait reports a failed
	// kernel f queued): returned, not hidden behind an untimed span.
	if err := s.s.Record(s.end); err != nil {
		return 0, false, cudaErr("record timing event", err)
	}
	if err := s.end.Wait(); err != nil {
		return 0, false, cudaErr("wait for queued work", err)
	}
	ms, err := cuda.Elapsed(s.start, s.end)
	if err != nil {
		return 0, false, nil
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), true, nil
}

func vec(v Vector) (*cuda.Vector, error) {
	cv, ok := v.(cudaVector)
	if !ok {
		return nil, fmt.Errorf("cuda backend: vector %T is not from a cuda stream", v)
	}
	return cv.v, nil
}

func (s *cudaStream) Alloc(n int) (Vector, error) {
	v, err := s.s.Alloc(n)
	if err != nil {
		return nil, cudaErr(fmt.Sprintf("alloc %d scalars", n), err)
	}
	return cudaVector{v}, nil
}

func (s *cudaStream) Upload(dst Vector, src []fr.Element, form Form) error {
	v, err := vec(dst)
	if err != nil {
		return err
	}
	if err := s.s.Upload(v, src, form == FormCanonical); err != nil {
		return cudaErr("upload", err)
	}
	return nil
}

func (s *cudaStream) Download(dst []fr.Element, src Vector) error {
	v, err := vec(src)
	if err != nil {
		return err
	}
	if err := s.s.Download(dst, v); err != nil {
		return cudaErr("download", err)
	}
	return nil
}

func (s *cudaStream) ComputeH(ctx context.Context, a, b, c Vector, domain *fft.Domain) error {
	va, err := vec(a)
	if err != nil {
		return err
	}
	vb, err := vec(b)
	if err != nil {
		return err
	}
	vc, err := vec(c)
	if err != nil {
		return err
	}
	n := int(domain.Cardinality)
	if va.Len() != n || vb.Len() != n || vc.Len() != n {
		return fmt.Errorf("cuda backend: compute h: vectors of %d, %d, %d for a domain of %d", va.Len(), vb.Len(), vc.Len(), n)
	}
	if err := s.s.ComputeH(ctx, va, vb, vc, domain); err != nil {
		return cudaErr("compute h", err)
	}
	return nil
}

func (s *cudaStream) MSMG1(ctx context.Context, bases G1Bases, scalars Vector, n int) (curve.G1Jac, error) {
	b, ok := bases.(cudaG1)
	if !ok {
		return curve.G1Jac{}, fmt.Errorf("cuda backend: msm g1: bases %T are not resident on a cuda device", bases)
	}
	v, err := vec(scalars)
	if err != nil {
		return curve.G1Jac{}, err
	}
	r, err := s.s.MSMG1(ctx, b.b, v, n)
	if err != nil {
		return curve.G1Jac{}, cudaErr("msm g1", err)
	}
	return r, nil
}

func (s *cudaStream) MSMG2(ctx context.Context, bases G2Bases, scalars Vector, n int) (curve.G2Jac, error) {
	b, ok := bases.(cudaG2)
	if !ok {
		return curve.G2Jac{}, fmt.Errorf("cuda backend: msm g2: bases %T are not resident on a cuda device", bases)
	}
	v, err := vec(scalars)
	if err != nil {
		return curve.G2Jac{}, err
	}
	r, err := s.s.MSMG2(ctx, b.b, v, n)
	if err != nil {
		return curve.G2Jac{}, cudaErr("msm g2", err)
	}
	return r, nil
}

func (s *cudaStream) SumG1(ctx context.Context, bases G1Bases, indices []int32) (curve.G1Jac, error) {
	b, ok := bases.(cudaG1)
	if !ok {
		return curve.G1Jac{}, fmt.Errorf("cuda backend: sum g1: bases %T are not resident on a cuda device", bases)
	}
	r, err := s.s.SumG1(ctx, b.b, indices)
	if err != nil {
		return curve.G1Jac{}, cudaErr("sum g1", err)
	}
	return r, nil
}

func (s *cudaStream) SumG2(ctx context.Context, bases G2Bases, indices []int32) (curve.G2Jac, error) {
	b, ok := bases.(cudaG2)
	if !ok {
		return curve.G2Jac{}, fmt.Errorf("cuda backend: sum g2: bases %T are not resident on a cuda device", bases)
	}
	r, err := s.s.SumG2(ctx, b.b, indices)
	if err != nil {
		return curve.G2Jac{}, cudaErr("sum g2", err)
	}
	return r, nil
}

func (s *cudaStream) Free(v Vector) {
	if cv, err := vec(v); err == nil {
		s.s.Free(cv)
	}
}

func (s *cudaStream) Sync() error {
	if err := s.s.Sync(); err != nil {
		return cudaErr("sync", err)
	}
	return nil
}

func (s *cudaStream) Close() error {
	if s.start != nil {
		s.start.Close()
		s.end.Close()
		s.start, s.end = nil, nil
	}
	if err := s.s.Close(); err != nil {
		return cudaErr("close stream", err)
	}
	return nil
}
