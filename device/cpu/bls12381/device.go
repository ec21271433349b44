// Package bls12381 is the CPU backend's BLS12-381 device (package
// device/cpu opens it): gnark-crypto on host memory. Every operation is
// the gnark-crypto call gnark's own provers make, so a proof built on it
// is bit-for-bit what gnark computes for the same randomness. Package
// device/cpu/bn254 is its generated BN254 copy.
package bls12381

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// NewDevice is emulated device index of the CPU backend for this
// package's curve; Close drops every base loaded on it.
func NewDevice(index int) *Emulated {
	return &Emulated{
		index: index,
		g1:    map[string]*cpuG1{},
		g2:    map[string]*cpuG2{},
	}
}

// Close evicts every base of the device; their handles fail afterwards.
func (d *Emulated) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range d.g1 {
		b.evict()
	}
	for _, b := range d.g2 {
		b.evict()
	}
	d.g1 = map[string]*cpuG1{}
	d.g2 = map[string]*cpuG2{}
}

// Emulated is one emulated device of the CPU backend (a cdev.Device with
// cdev.HostBases).
type Emulated struct {
	index int
	mu    sync.Mutex
	g1    map[string]*cpuG1
	g2    map[string]*cpuG2
}

func (d *Emulated) Info() device.Info {
	return device.Info{Index: d.index, Name: fmt.Sprintf("cpu (emulated device %d)", d.index)}
}

var _ cdev.Device = (*Emulated)(nil)

// Curve is the curve of this package's devices.
const Curve = cdev.Curve

func (d *Emulated) WantsCanonical() bool { return false }

// SumsUnits is false: gnark-crypto's MSM takes a one as any scalar.
func (d *Emulated) SumsUnits() bool { return false }

// LoadG1 keeps a reference to points: the proving key's slices are already
// host memory, and copying them would only double the footprint.
func (d *Emulated) LoadG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	return loadBases(d, d.g1, key, points, 0)
}

func (d *Emulated) LoadG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	return loadBases(d, d.g2, key, points, 0)
}

// loadBases registers points under key in m (one of d's maps), resident
// (chunk 0) or on the host; a key already there returns its handle.
func loadBases[P any](d *Emulated, m map[string]*cpuBases[P], key string, points []P, chunk int) (*cpuBases[P], error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := m[key]; ok {
		return b, nil
	}
	b := &cpuBases[P]{key: key, points: points, chunk: chunk}
	m[key] = b
	return b, nil
}

// HostChunk is the points of one chunk of host bases' MSMs.
const HostChunk = 1 << 20

// hostChunk is HostChunk; tests set it small to run many chunks.
var hostChunk = HostChunk

// HostG1 keeps a reference to points as LoadG1 does; the MSMs over them
// go a chunk at a time (cdev.HostBases), so that the chunked sums are
// checked against the resident ones on every machine.
func (d *Emulated) HostG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	return loadBases(d, d.g1, key, points, hostChunk)
}

// HostG2 is HostG1 for G2 points.
func (d *Emulated) HostG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	return loadBases(d, d.g2, key, points, hostChunk)
}

// HostChunk is the points of one chunk of host bases' MSMs.
func (d *Emulated) HostChunk() int { return hostChunk }

var _ cdev.HostBases = (*Emulated)(nil)

func (d *Emulated) NewStream() (cdev.Stream, error) {
	return &cpuStream{dev: d}, nil
}

// cpuBases is a resident vector of points. Evicting it drops the points
// under the write lock, after the MSMs reading them (read lock) are done.
type cpuBases[P any] struct {
	key     string
	mu      sync.RWMutex
	points  []P
	evicted bool
	// chunk is 0 for resident bases; host bases (cdev.HostBases) run
	// their MSMs a chunk of this many points at a time, as a device
	// streaming them does, and are not counted by Resident.
	chunk int
}

type (
	cpuG1 = cpuBases[curve.G1Affine]
	cpuG2 = cpuBases[curve.G2Affine]
)

func (b *cpuBases[P]) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.points)
}

func (b *cpuBases[P]) evict() {
	b.mu.Lock()
	b.points, b.evicted = nil, true
	b.mu.Unlock()
}

// use runs f on the points under the read lock; evicted bases are an error.
func (b *cpuBases[P]) use(dev int, f func([]P) error) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.evicted {
		return fmt.Errorf("cpu device %d: bases %q used after Evict", dev, b.key)
	}
	return f(b.points)
}

// Evict drops the device's reference to the points under key.
func (d *Emulated) Evict(key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b1, ok1 := d.g1[key]
	b2, ok2 := d.g2[key]
	if !ok1 && !ok2 {
		return fmt.Errorf("cpu device %d: evict %q: no bases resident under that key", d.index, key)
	}
	if ok1 {
		b1.evict()
		delete(d.g1, key)
	}
	if ok2 {
		b2.evict()
		delete(d.g2, key)
	}
	return nil
}

// Resident counts the bytes of the resident points (held by reference:
// the CPU backend does not copy them).
func (d *Emulated) Resident() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n uint64
	for _, b := range d.g1 {
		if b.chunk == 0 {
			n += uint64(b.Len()) * uint64(unsafe.Sizeof(curve.G1Affine{}))
		}
	}
	for _, b := range d.g2 {
		if b.chunk == 0 {
			n += uint64(b.Len()) * uint64(unsafe.Sizeof(curve.G2Affine{}))
		}
	}
	return n
}

type cpuVector struct {
	data  []fr.Element
	freed bool
}

func (v *cpuVector) Len() int { return len(v.data) }

type cpuStream struct {
	dev    *Emulated
	closed bool
}

func (s *cpuStream) Alloc(n int) (device.Vector, error) {
	if n < 0 {
		return nil, fmt.Errorf("cpu device %d: alloc of %d scalars", s.dev.index, n)
	}
	return &cpuVector{data: make([]fr.Element, n)}, nil
}

func (s *cpuStream) vector(v device.Vector) (*cpuVector, error) {
	cv, ok := v.(*cpuVector)
	if !ok || cv == nil {
		return nil, fmt.Errorf("cpu device %d: vector %T does not belong to the cpu backend", s.dev.index, v)
	}
	if cv.freed {
		return nil, fmt.Errorf("cpu device %d: vector used after Free", s.dev.index)
	}
	return cv, nil
}

func (s *cpuStream) Upload(dst device.Vector, src []fr.Element, form device.Form) error {
	d, err := s.vector(dst)
	if err != nil {
		return err
	}
	if len(src) > len(d.data) {
		return fmt.Errorf("cpu device %d: upload of %d scalars into a vector of %d", s.dev.index, len(src), len(d.data))
	}
	copy(d.data, src)
	clear(d.data[len(src):])
	if form == device.FormCanonical {
		parallelize(len(src), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d.data[i].Mul(&d.data[i], &rSquare)
			}
		})
	}
	return nil
}

func (s *cpuStream) Download(dst []fr.Element, v device.Vector) error {
	cv, err := s.vector(v)
	if err != nil {
		return err
	}
	copy(dst, cv.data)
	return nil
}

func (s *cpuStream) MSMG1(ctx context.Context, bases device.G1Bases, scalars device.Vector, n int) (res curve.G1Jac, err error) {
	b, ok := bases.(*cpuG1)
	if !ok {
		return res, fmt.Errorf("cpu device %d: g1 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	v, err := s.vector(scalars)
	if err != nil {
		return res, err
	}
	err = b.use(s.dev.index, func(points []curve.G1Affine) error {
		if n < 0 || n > len(points) || n > len(v.data) {
			return fmt.Errorf("cpu device %d: g1 msm of %d terms over %d bases and %d scalars", s.dev.index, n, len(points), len(v.data))
		}
		if err := ctx.Err(); err != nil || n == 0 {
			return err
		}
		res, err = inChunks(ctx, n, b.chunk, func(lo, hi int) (r curve.G1Jac, err error) {
			_, err = r.MultiExp(points[lo:hi], v.data[lo:hi], ecc.MultiExpConfig{NbTasks: runtime.NumCPU()})
			return r, err
		})
		return err
	})
	return res, err
}

func (s *cpuStream) MSMG2(ctx context.Context, bases device.G2Bases, scalars device.Vector, n int) (res curve.G2Jac, err error) {
	b, ok := bases.(*cpuG2)
	if !ok {
		return res, fmt.Errorf("cpu device %d: g2 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	v, err := s.vector(scalars)
	if err != nil {
		return res, err
	}
	err = b.use(s.dev.index, func(points []curve.G2Affine) error {
		if n < 0 || n > len(points) || n > len(v.data) {
			return fmt.Errorf("cpu device %d: g2 msm of %d terms over %d bases and %d scalars", s.dev.index, n, len(points), len(v.data))
		}
		if err := ctx.Err(); err != nil || n == 0 {
			return err
		}
		res, err = inChunks(ctx, n, b.chunk, func(lo, hi int) (r curve.G2Jac, err error) {
			_, err = r.MultiExp(points[lo:hi], v.data[lo:hi], ecc.MultiExpConfig{NbTasks: G2Tasks()})
			return r, err
		})
		return err
	})
	return res, err
}

func (s *cpuStream) SumG1(ctx context.Context, bases device.G1Bases, indices []int32) (res curve.G1Jac, err error) {
	b, ok := bases.(*cpuG1)
	if !ok {
		return res, fmt.Errorf("cpu device %d: g1 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	err = b.use(s.dev.index, func(points []curve.G1Affine) error {
		if err := checkIndices(indices, len(points)); err != nil {
			return fmt.Errorf("cpu device %d: sum g1: %w", s.dev.index, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		res = SumG1Affine(points, indices)
		return nil
	})
	return res, err
}

func (s *cpuStream) SumG2(ctx context.Context, bases device.G2Bases, indices []int32) (res curve.G2Jac, err error) {
	b, ok := bases.(*cpuG2)
	if !ok {
		return res, fmt.Errorf("cpu device %d: g2 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	err = b.use(s.dev.index, func(points []curve.G2Affine) error {
		if err := checkIndices(indices, len(points)); err != nil {
			return fmt.Errorf("cpu device %d: sum g2: %w", s.dev.index, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		res = SumG2Affine(points, indices)
		return nil
	})
	return res, err
}

func (s *cpuStream) Free(v device.Vector) {
	if cv, ok := v.(*cpuVector); ok && cv != nil {
		cv.data, cv.freed = nil, true
	}
}

func (s *cpuStream) Sync() error { return nil }

func (s *cpuStream) Close() error {
	s.closed = true
	return nil
}

func checkIndices(indices []int32, n int) error {
	for _, i := range indices {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("index %d out of %d bases", i, n)
		}
	}
	return nil
}

// rSquare holds R² mod r in its limbs: multiplying a canonical element by
// it (Montgomery multiplication) yields the element's Montgomery form.
var rSquare = func() fr.Element {
	var e fr.Element
	r := new(big.Int).Lsh(big.NewInt(1), 256)
	r.Mod(r, fr.Modulus())
	e.SetBigInt(r)
	return e
}()

// G2Tasks is the task count gnark's prover gives its G2 MSM.
func G2Tasks() int {
	n := runtime.NumCPU()
	if n <= 16 {
		n *= 2
	}
	return n
}

// inChunks returns msm(0, n), or with chunk > 0 the sum of msm over
// consecutive ranges of at most chunk terms (host bases), checking ctx
// between them.
func inChunks[J any, PJ interface {
	*J
	AddAssign(*J) *J
}](ctx context.Context, n, chunk int, msm func(lo, hi int) (J, error)) (J, error) {
	if chunk <= 0 {
		return msm(0, n)
	}
	var sum J
	for lo := 0; lo < n; lo += chunk {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		r, err := msm(lo, min(lo+chunk, n))
		if err != nil {
			return sum, err
		}
		PJ(&sum).AddAssign(&r)
	}
	return sum, nil
}
