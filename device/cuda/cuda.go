//go:build cuda

// Package cuda is the device contract's CUDA backend: an adapter over the
// kernels of package cuda (build tag cuda; without it New says what is
// missing), opened with the kernels' Options. Its streams time their work
// with CUDA events (device.Timer) and compute Groth16's H step in one
// fused call, the optional capability that family declares
// (stages/groth16.HComputer, found with device.As); its memory model is
// Model of the options it was opened with.
package cuda

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
)

// New returns the backend over every CUDA device of the machine, whose
// kernels run as opts says. It fails with an error wrapping
// device.ErrNoDevice when there is none, and names the field of options
// out of range.
func New(opts Options) (device.Backend, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("cuda backend: %w", err)
	}
	infos, err := cu.Devices()
	if err != nil {
		return nil, cudaErr("list devices", err)
	}
	b := &cudaBackend{opts: opts}
	for _, in := range infos {
		d, err := cu.Open(in.Index, opts)
		if err != nil {
			b.Close()
			return nil, cudaErr(fmt.Sprintf("open device %d", in.Index), err)
		}
		b.devs = append(b.devs, &cudaDevice{d: d, name: in.Name})
	}
	return b, nil
}

// Factory is the registry's "cuda" entry: New, over every device of the
// machine (a run that wants more than there are is refused by the
// registry), with Model as its memory model.
func Factory() device.Factory {
	return device.NewFactory("cuda", func(_ int, opts Options) (device.Backend, error) { return New(opts) }, Model)
}

// cudaErr wraps err so that errors.Is finds this package's sentinels too.
func cudaErr(what string, err error) error {
	switch {
	case errors.Is(err, cu.ErrOutOfMemory):
		return fmt.Errorf("cuda backend: %s: %w: %w", what, device.ErrOutOfMemory, err)
	case errors.Is(err, cu.ErrNoDevice):
		return fmt.Errorf("cuda backend: %s: %w: %w", what, device.ErrNoDevice, err)
	}
	return fmt.Errorf("cuda backend: %s: %w", what, err)
}

type cudaBackend struct {
	opts Options
	devs []*cudaDevice
}

func (b *cudaBackend) Name() string { return "cuda" }

func (b *cudaBackend) Memory() device.MemoryModel { return Model(b.opts) }

func (b *cudaBackend) Devices() []device.Info {
	out := make([]device.Info, len(b.devs))
	for i, d := range b.devs {
		out[i] = d.Info()
	}
	return out
}

func (b *cudaBackend) Device(i int) (device.Device, error) {
	if i < 0 || i >= len(b.devs) {
		return nil, fmt.Errorf("cuda backend: device %d: %w (have %d)", i, device.ErrNoDevice, len(b.devs))
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
	d    *cu.Device
	name string
	mu   sync.Mutex
	// host is the bases kept in host memory, by key (HostG1, HostG2).
	host map[string]interface{ evict() }
}

func (d *cudaDevice) Info() device.Info {
	in := device.Info{Index: d.d.Index(), Name: d.name}
	if di, err := d.d.Info(); err == nil {
		in.MemTotal, in.MemFree = di.MemTotal, di.MemFree
	}
	return in
}

// WantsCanonical is false: the MSM kernels read Montgomery scalars and
// convert them in registers, so the host need not convert.
func (d *cudaDevice) WantsCanonical() bool { return false }

// SumsUnits is true: an MSM mostly of zeros and units gathers them on the
// device (cuda.Stream.PlanMSM), which beats uploading index lists.
func (d *cudaDevice) SumsUnits() bool { return true }

type cudaG1 struct{ b *cu.G1Bases }

func (g cudaG1) Len() int { return g.b.Len() }

type cudaG2 struct{ b *cu.G2Bases }

func (g cudaG2) Len() int { return g.b.Len() }

func (d *cudaDevice) LoadG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	b, err := d.d.LoadG1(key, points)
	if err != nil {
		return nil, cudaErr("load g1", err) // the cuda error names the key and device
	}
	return cudaG1{b}, nil
}

func (d *cudaDevice) LoadG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	b, err := d.d.LoadG2(key, points)
	if err != nil {
		return nil, cudaErr("load g2", err) // the cuda error names the key and device
	}
	return cudaG2{b}, nil
}

// TableBytes is n points with the table of window cu.TableWindow(n)
// (device.Tables).
func (d *cudaDevice) TableBytes(n, pointBytes int) uint64 {
	return uint64(n) * uint64(pointBytes) * uint64(cu.TableRows(cu.TableWindow(n)))
}

func (d *cudaDevice) Loaded(key string) bool { return d.d.Loaded(key) }

func (d *cudaDevice) LoadG1Table(key string, points []curve.G1Affine) (device.G1Bases, error) {
	b, err := d.d.LoadG1Table(key, points, cu.TableWindow(len(points)))
	if err != nil {
		return nil, cudaErr("load g1 with a table", err)
	}
	return cudaG1{b}, nil
}

func (d *cudaDevice) LoadG2Table(key string, points []curve.G2Affine) (device.G2Bases, error) {
	b, err := d.d.LoadG2Table(key, points, cu.TableWindow(len(points)))
	if err != nil {
		return nil, cudaErr("load g2 with a table", err)
	}
	return cudaG2{b}, nil
}

// hostG1 and hostG2 are bases kept in host memory (device.HostBases):
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

// HostG1 keeps points in host memory under key (device.HostBases).
func (d *cudaDevice) HostG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	return hostLoad(d, key, points), nil
}

// HostG2 is HostG1 for G2 points.
func (d *cudaDevice) HostG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	return hostLoad(d, key, points), nil
}

// hostLoad records points under key, or returns the host bases of that
// key and group already there.
func hostLoad[P any](d *cudaDevice, key string, points []P) *hostBases[P] {
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
func (d *cudaDevice) HostChunk() int { return cu.HostChunk }

var (
	_ device.HostBases = (*cudaDevice)(nil)
	_ device.Tables    = (*cudaDevice)(nil)
)

func (d *cudaDevice) Evict(key string) error {
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

func (d *cudaDevice) Resident() uint64 { return d.d.Resident() }

func (d *cudaDevice) NewStream() (device.Stream, error) {
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
	v, err := s.s.Alloc(n)
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
	if err := s.s.Upload(v, src, form == device.FormCanonical); err != nil {
		return cudaErr("upload", err)
	}
	return nil
}

func (s *cudaStream) Download(dst []fr.Element, src device.Vector) error {
	v, err := vec(src)
	if err != nil {
		return err
	}
	if err := s.s.Download(dst, v); err != nil {
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
	if err := s.s.ComputeH(ctx, va, vb, vc, domain); err != nil {
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
		err = s.s.FFTInverse(x, domain, dif, coset)
	} else {
		err = s.s.FFT(x, domain, dif, coset)
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
	return s.constant(ctx, "scale", dst, a, c, s.s.Scale)
}

func (s *cudaStream) AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.constant(ctx, "add scalar", dst, a, c, s.s.AddScalar)
}

func (s *cudaStream) MSMG1(ctx context.Context, bases device.G1Bases, scalars device.Vector, n int) (curve.G1Jac, error) {
	if h, ok := bases.(*hostG1); ok {
		var r curve.G1Jac
		err := h.use("msm g1", func(pts []curve.G1Affine) error {
			v, err := vec(scalars)
			if err == nil {
				r, err = s.s.MSMG1Host(ctx, pts, v, n, cu.HostChunk)
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
	r, err := s.s.MSMG1(ctx, b.b, v, n)
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
				r, err = s.s.MSMG2Host(ctx, pts, v, n, cu.HostChunk)
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
	r, err := s.s.MSMG2(ctx, b.b, v, n)
	if err != nil {
		return curve.G2Jac{}, cudaErr("msm g2", err)
	}
	return r, nil
}

func (s *cudaStream) SumG1(ctx context.Context, bases device.G1Bases, indices []int32) (curve.G1Jac, error) {
	if h, ok := bases.(*hostG1); ok {
		var r curve.G1Jac
		err := h.use("sum g1", func(pts []curve.G1Affine) (err error) {
			r, err = s.s.SumG1Host(ctx, pts, indices, cu.HostChunk)
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
	r, err := s.s.SumG1(ctx, b.b, indices)
	if err != nil {
		return curve.G1Jac{}, cudaErr("sum g1", err)
	}
	return r, nil
}

func (s *cudaStream) SumG2(ctx context.Context, bases device.G2Bases, indices []int32) (curve.G2Jac, error) {
	if h, ok := bases.(*hostG2); ok {
		var r curve.G2Jac
		err := h.use("sum g2", func(pts []curve.G2Affine) (err error) {
			r, err = s.s.SumG2Host(ctx, pts, indices, cu.HostChunk)
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
	r, err := s.s.SumG2(ctx, b.b, indices)
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
