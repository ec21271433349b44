//go:build cuda

package bls12381

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// Err wraps err of what the kernels did so that errors.Is finds
// package device's sentinels too.
func Err(what string, err error) error {
	switch {
	case errors.Is(err, cu.ErrOutOfMemory):
		return fmt.Errorf("cuda backend: %s: %w: %w", what, device.ErrOutOfMemory, err)
	case errors.Is(err, cu.ErrNoDevice):
		return fmt.Errorf("cuda backend: %s: %w: %w", what, device.ErrNoDevice, err)
	}
	return fmt.Errorf("cuda backend: %s: %w", what, err)
}

// cudaErr is Err.
func cudaErr(what string, err error) error { return Err(what, err) }

// NewDevice is the kernels' device d (named name) for this package's
// curve; several curves' devices may share one d.
func NewDevice(d *cu.Device, name string) *Device { return &Device{d: d, name: name} }

// Curve is the curve of this package's devices.
const Curve = cdev.Curve

// Device is one CUDA device for this package's curve (a cdev.Device
// with cdev.HostBases and cdev.Tables).
type Device struct {
	d    *cu.Device
	name string
	mu   sync.Mutex
	// host is the bases kept in host memory, by key (HostG1, HostG2).
	host map[string]interface{ evict() }
}

func (d *Device) Info() device.Info {
	in := device.Info{Index: d.d.Index(), Name: d.name}
	if di, err := d.d.Info(); err == nil {
		in.MemTotal, in.MemFree = di.MemTotal, di.MemFree
	}
	return in
}

// WantsCanonical is false: the MSM kernels read Montgomery scalars and
// convert them in registers, so the host need not convert.
func (d *Device) WantsCanonical() bool { return false }

// SumsUnits is true: an MSM mostly of zeros and units gathers them on the
// device (cuda.Stream.PlanMSM), which beats uploading index lists.
func (d *Device) SumsUnits() bool { return true }

type cudaG1 struct{ b *cu.Bases[curve.G1Affine] }

func (g cudaG1) Len() int { return g.b.Len() }

type cudaG2 struct{ b *cu.Bases[curve.G2Affine] }

func (g cudaG2) Len() int { return g.b.Len() }

func (d *Device) LoadG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	b, err := cu.BLS12381G1.Load(d.d, key, points)
	if err != nil {
		return nil, cudaErr("load g1", err) // the cuda error names the key and device
	}
	return cudaG1{b}, nil
}

func (d *Device) LoadG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	b, err := cu.BLS12381G2.Load(d.d, key, points)
	if err != nil {
		return nil, cudaErr("load g2", err) // the cuda error names the key and device
	}
	return cudaG2{b}, nil
}

// TableBytes is n points with the table of window cu.TableWindow(n)
// (cdev.Tables).
func (d *Device) TableBytes(n, pointBytes int) uint64 {
	return uint64(n) * uint64(pointBytes) * uint64(cu.TableRows(cu.TableWindow(n)))
}

func (d *Device) Loaded(key string) bool { return d.d.Loaded(key) }

func (d *Device) LoadG1Table(key string, points []curve.G1Affine) (device.G1Bases, error) {
	b, err := cu.BLS12381G1.LoadTable(d.d, key, points, cu.TableWindow(len(points)))
	if err != nil {
		return nil, cudaErr("load g1 with a table", err)
	}
	return cudaG1{b}, nil
}

func (d *Device) LoadG2Table(key string, points []curve.G2Affine) (device.G2Bases, error) {
	b, err := cu.BLS12381G2.LoadTable(d.d, key, points, cu.TableWindow(len(points)))
	if err != nil {
		return nil, cudaErr("load g2 with a table", err)
	}
	return cudaG2{b}, nil
}

// hostG1 and hostG2 are bases kept in host memory (cdev.HostBases):
// every MSM and sum over them copies them through the stream a chunk at
// a time.
type (
	hostG1 = hostBases[curve.G1Affine]
	hostG2 = hostBases[curve.G2Affine]
)

// hostBases holds the points of host bases until they are evicted: uses
// hold the read lock, Evict the write lock.
type hostBases[P any] struct {
	key     string
	mu      sync.RWMutex
	points  []P
	evicted bool
}

func (b *hostBases[P]) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.points)
}

// use runs f with the points under the read lock; evicted bases are an
// error naming the key.
func (b *hostBases[P]) use(what string, f func([]P) error) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.evicted {
		return fmt.Errorf("cuda backend: %s: host bases %q used after Evict", what, b.key)
	}
	return f(b.points)
}

func (b *hostBases[P]) evict() {
	b.mu.Lock()
	b.points, b.evicted = nil, true
	b.mu.Unlock()
}

// HostG1 keeps points in host memory under key (cdev.HostBases).
func (d *Device) HostG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	return hostLoad(d, key, points), nil
}

// HostG2 is HostG1 for G2 points.
func (d *Device) HostG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	return hostLoad(d, key, points), nil
}

// hostLoad records points under key, or returns the host bases of that
// key and group already there.
func hostLoad[P any](d *Device, key string, points []P) *hostBases[P] {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.host[key].(*hostBases[P]); ok {
		return b
	}
	b := &hostBases[P]{key: key, points: points}
	if d.host == nil {
		d.host = map[string]interface{ evict() }{}
	}
	d.host[key] = b
	return b
}

// HostChunk is package cuda's chunk of host bases.
func (d *Device) HostChunk() int { return cu.HostChunk }

var (
	_ cdev.HostBases = (*Device)(nil)
	_ cdev.Tables    = (*Device)(nil)
)

func (d *Device) Evict(key string) error {
	d.mu.Lock()
	b, ok := d.host[key]
	delete(d.host, key)
	d.mu.Unlock()
	if ok {
		b.evict()
		return nil
	}
	if err := d.d.Evict(key); err != nil {
		return cudaErr("evict", err) // the cuda error names the key and device
	}
	return nil
}

func (d *Device) Resident() uint64 { return d.d.Resident() }

func (d *Device) NewStream() (cdev.Stream, error) {
	s, err := d.d.NewStream()
	if err != nil {
		return nil, cudaErr("new stream", err)
	}
	return &cudaStream{s: s}, nil
}

type cudaVector struct{ v *cu.Vector }

func (v cudaVector) Len() int { return v.v.Len() }

type cudaStream struct {
	s *cu.Stream
	// start, end time Time's work; created on first use, closed with the
	// stream (a stream belongs to one worker at a time).
	start, end *cu.Event
}

var _ device.Timer = (*cudaStream)(nil)

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
	ms, err := cu.Elapsed(s.start, s.end)
	if err != nil {
		return 0, false, nil
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), true, nil
}

func vec(v device.Vector) (*cu.Vector, error) {
	cv, ok := v.(cudaVector)
	if !ok {
		return nil, fmt.Errorf("cuda backend: vector %T is not from a cuda stream", v)
	}
	return cv.v, nil
}

func (s *cudaStream) Alloc(n int) (device.Vector, error) {
	v, err := cu.BLS12381Fr.Alloc(s.s, n)
	if err != nil {
		return nil, cudaErr(fmt.Sprintf("alloc %d scalars", n), err)
	}
	return cudaVector{v}, nil
}

func (s *cudaStream) Upload(dst device.Vector, src []fr.Element, form device.Form) error {
	v, err := vec(dst)
	if err != nil {
		return err
	}
	if err := cu.BLS12381Fr.Upload(s.s, v, src, form == device.FormCanonical); err != nil {
		return cudaErr("upload", err)
	}
	return nil
}

func (s *cudaStream) Download(dst []fr.Element, src device.Vector) error {
	v, err := vec(src)
	if err != nil {
		return err
	}
	if err := cu.BLS12381Fr.Download(s.s, dst, v); err != nil {
		return cudaErr("download", err)
	}
	return nil
}

// ComputeH is Groth16's H step fused on the device (the capability
// stages/groth16.HComputer): a receives H's coefficients in bit-reversed
// order, b and c are clobbered; queued only.
func (s *cudaStream) ComputeH(ctx context.Context, a, b, c device.Vector, domain *fft.Domain) error {
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
	if err := cu.BLS12381Fr.ComputeH(ctx, s.s, va, vb, vc, domain); err != nil {
		return cudaErr("compute h", err)
	}
	return nil
}

func (s *cudaStream) FFT(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	return s.ntt(ctx, "fft", v, domain, false, dec, coset)
}

func (s *cudaStream) FFTInverse(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error {
	return s.ntt(ctx, "inverse fft", v, domain, true, dec, coset)
}

func (s *cudaStream) ntt(ctx context.Context, what string, v device.Vector, domain *fft.Domain, inverse bool, dec fft.Decimation, coset bool) error {
	x, err := vec(v)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dif := dec == fft.DIF
	if inverse {
		err = cu.BLS12381Fr.FFTInverse(s.s, x, domain, dif, coset)
	} else {
		err = cu.BLS12381Fr.FFT(s.s, x, domain, dif, coset)
	}
	if err != nil {
		return cudaErr(what, err)
	}
	return nil
}

func (s *cudaStream) BitReverse(ctx context.Context, v device.Vector, n int) error {
	x, err := vec(v)
	if err != nil {
		return err
	}
	if n <= 0 || n&(n-1) != 0 {
		return fmt.Errorf("cuda backend: bit reverse of %d scalars: not a power of two", n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.s.BitReverse(x, bits.TrailingZeros(uint(n))); err != nil {
		return cudaErr("bit reverse", err)
	}
	return nil
}

// vecs resolves the vectors of an element-wise operation.
func vecs(vs ...device.Vector) ([3]*cu.Vector, error) {
	var out [3]*cu.Vector
	for i, v := range vs {
		x, err := vec(v)
		if err != nil {
			return out, err
		}
		out[i] = x
	}
	return out, nil
}

func (s *cudaStream) binary(ctx context.Context, what string, dst, a, b device.Vector, op func(z, x, y *cu.Vector) error) error {
	v, err := vecs(dst, a, b)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := op(v[0], v[1], v[2]); err != nil {
		return cudaErr(what, err)
	}
	return nil
}

func (s *cudaStream) Mul(ctx context.Context, dst, a, b device.Vector) error {
	return s.binary(ctx, "mul", dst, a, b, s.s.Mul)
}

func (s *cudaStream) Add(ctx context.Context, dst, a, b device.Vector) error {
	return s.binary(ctx, "add", dst, a, b, s.s.Add)
}

func (s *cudaStream) Sub(ctx context.Context, dst, a, b device.Vector) error {
	return s.binary(ctx, "sub", dst, a, b, s.s.Sub)
}

func (s *cudaStream) constant(ctx context.Context, what string, dst, a device.Vector, c fr.Element, op func(z, x *cu.Vector, c fr.Element) error) error {
	v, err := vecs(dst, a)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := op(v[0], v[1], c); err != nil {
		return cudaErr(what, err)
	}
	return nil
}

func (s *cudaStream) Scale(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.constant(ctx, "scale", dst, a, c, func(z, x *cu.Vector, c fr.Element) error { return cu.BLS12381Fr.Scale(s.s, z, x, c) })
}

func (s *cudaStream) AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.constant(ctx, "add scalar", dst, a, c, func(z, x *cu.Vector, c fr.Element) error { return cu.BLS12381Fr.AddScalar(s.s, z, x, c) })
}

func (s *cudaStream) MSMG1(ctx context.Context, bases device.G1Bases, scalars device.Vector, n int) (curve.G1Jac, error) {
	if h, ok := bases.(*hostG1); ok {
		var r curve.G1Jac
		err := h.use("msm g1", func(pts []curve.G1Affine) error {
			v, err := vec(scalars)
			if err == nil {
				r, err = cu.BLS12381G1.MSMHost(ctx, s.s, pts, v, n, cu.HostChunk)
			}
			return err
		})
		if err != nil {
			return curve.G1Jac{}, cudaErr("msm g1 over host bases "+h.key, err)
		}
		return r, nil
	}
	b, ok := bases.(cudaG1)
	if !ok {
		return curve.G1Jac{}, fmt.Errorf("cuda backend: msm g1: bases %T are not resident on a cuda device", bases)
	}
	v, err := vec(scalars)
	if err != nil {
		return curve.G1Jac{}, err
	}
	r, err := cu.BLS12381G1.MSM(ctx, s.s, b.b, v, n)
	if err != nil {
		return curve.G1Jac{}, cudaErr("msm g1", err)
	}
	return r, nil
}

func (s *cudaStream) MSMG2(ctx context.Context, bases device.G2Bases, scalars device.Vector, n int) (curve.G2Jac, error) {
	if h, ok := bases.(*hostG2); ok {
		var r curve.G2Jac
		err := h.use("msm g2", func(pts []curve.G2Affine) error {
			v, err := vec(scalars)
			if err == nil {
				r, err = cu.BLS12381G2.MSMHost(ctx, s.s, pts, v, n, cu.HostChunk)
			}
			return err
		})
		if err != nil {
			return curve.G2Jac{}, cudaErr("msm g2 over host bases "+h.key, err)
		}
		return r, nil
	}
	b, ok := bases.(cudaG2)
	if !ok {
		return curve.G2Jac{}, fmt.Errorf("cuda backend: msm g2: bases %T are not resident on a cuda device", bases)
	}
	v, err := vec(scalars)
	if err != nil {
		return curve.G2Jac{}, err
	}
	r, err := cu.BLS12381G2.MSM(ctx, s.s, b.b, v, n)
	if err != nil {
		return curve.G2Jac{}, cudaErr("msm g2", err)
	}
	return r, nil
}

func (s *cudaStream) SumG1(ctx context.Context, bases device.G1Bases, indices []int32) (curve.G1Jac, error) {
	if h, ok := bases.(*hostG1); ok {
		var r curve.G1Jac
		err := h.use("sum g1", func(pts []curve.G1Affine) (err error) {
			r, err = cu.BLS12381G1.SumHost(ctx, s.s, pts, indices, cu.HostChunk)
			return err
		})
		if err != nil {
			return curve.G1Jac{}, cudaErr("sum g1 over host bases "+h.key, err)
		}
		return r, nil
	}
	b, ok := bases.(cudaG1)
	if !ok {
		return curve.G1Jac{}, fmt.Errorf("cuda backend: sum g1: bases %T are not resident on a cuda device", bases)
	}
	r, err := cu.BLS12381G1.Sum(ctx, s.s, b.b, indices)
	if err != nil {
		return curve.G1Jac{}, cudaErr("sum g1", err)
	}
	return r, nil
}

func (s *cudaStream) SumG2(ctx context.Context, bases device.G2Bases, indices []int32) (curve.G2Jac, error) {
	if h, ok := bases.(*hostG2); ok {
		var r curve.G2Jac
		err := h.use("sum g2", func(pts []curve.G2Affine) (err error) {
			r, err = cu.BLS12381G2.SumHost(ctx, s.s, pts, indices, cu.HostChunk)
			return err
		})
		if err != nil {
			return curve.G2Jac{}, cudaErr("sum g2 over host bases "+h.key, err)
		}
		return r, nil
	}
	b, ok := bases.(cudaG2)
	if !ok {
		return curve.G2Jac{}, fmt.Errorf("cuda backend: sum g2: bases %T are not resident on a cuda device", bases)
	}
	r, err := cu.BLS12381G2.Sum(ctx, s.s, b.b, indices)
	if err != nil {
		return curve.G2Jac{}, cudaErr("sum g2", err)
	}
	return r, nil
}

func (s *cudaStream) Free(v device.Vector) {
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
