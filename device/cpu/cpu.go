// Package cpu is the reference backend of the device contract: gnark-crypto
// on host memory, always available, presenting one or more emulated
// devices. Every operation is the gnark-crypto call gnark's own provers
// make, so a proof built on it is bit-for-bit what gnark computes for the
// same randomness, and every other backend is tested against it.
package cpu

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
)

// New returns the CPU backend presenting devices emulated devices (1
// when devices <= 0). Device memory is host memory owned by the backend.
func New(devices int) (device.Backend, error) {
	if devices <= 0 {
		devices = 1
	}
	b := &cpuBackend{}
	for i := 0; i < devices; i++ {
		b.devs = append(b.devs, &cpuDevice{
			index: i,
			g1:    map[string]*cpuG1{},
			g2:    map[string]*cpuG2{},
		})
	}
	return b, nil
}

type cpuBackend struct {
	devs []*cpuDevice
}

func (b *cpuBackend) Name() string { return "cpu" }

func (b *cpuBackend) Devices() []device.Info {
	out := make([]device.Info, len(b.devs))
	for i, d := range b.devs {
		out[i] = d.Info()
	}
	return out
}

func (b *cpuBackend) Device(i int) (device.Device, error) {
	if i < 0 || i >= len(b.devs) {
		return nil, fmt.Errorf("cpu backend: device %d: %w (have %d)", i, device.ErrNoDevice, len(b.devs))
	}
	return b.devs[i], nil
}

func (b *cpuBackend) Close() error {
	for _, d := range b.devs {
		d.mu.Lock()
		for _, b := range d.g1 {
			b.evict()
		}
		for _, b := range d.g2 {
			b.evict()
		}
		d.g1 = map[string]*cpuG1{}
		d.g2 = map[string]*cpuG2{}
		d.mu.Unlock()
	}
	return nil
}

type cpuDevice struct {
	index int
	mu    sync.Mutex
	g1    map[string]*cpuG1
	g2    map[string]*cpuG2
}

func (d *cpuDevice) Info() device.Info {
	return device.Info{Index: d.index, Name: fmt.Sprintf("cpu (emulated device %d)", d.index)}
}

func (d *cpuDevice) WantsCanonical() bool { return false }

// LoadG1 keeps a reference to points: the proving key's slices are already
// host memory, and copying them would only double the footprint.
func (d *cpuDevice) LoadG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.g1[key]; ok {
		return b, nil
	}
	b := &cpuG1{key: key, points: points}
	d.g1[key] = b
	return b, nil
}

func (d *cpuDevice) LoadG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.g2[key]; ok {
		return b, nil
	}
	b := &cpuG2{key: key, points: points}
	d.g2[key] = b
	return b, nil
}

func (d *cpuDevice) NewStream() (device.Stream, error) {
	return &cpuStream{dev: d}, nil
}

// cpuBases is a resident vector of points. Evicting it drops the points
// under the write lock, after the MSMs reading them (read lock) are done.
type cpuBases[P any] struct {
	key     string
	mu      sync.RWMutex
	points  []P
	evicted bool
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
func (d *cpuDevice) Evict(key string) error {
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
func (d *cpuDevice) Resident() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n uint64
	for _, b := range d.g1 {
		n += uint64(b.Len()) * uint64(unsafe.Sizeof(curve.G1Affine{}))
	}
	for _, b := range d.g2 {
		n += uint64(b.Len()) * uint64(unsafe.Sizeof(curve.G2Affine{}))
	}
	return n
}

type cpuVector struct {
	data  []fr.Element
	freed bool
}

func (v *cpuVector) Len() int { return len(v.data) }

type cpuStream struct {
	dev    *cpuDevice
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
		_, err := res.MultiExp(points[:n], v.data[:n], ecc.MultiExpConfig{NbTasks: runtime.NumCPU()})
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
		_, err := res.MultiExp(points[:n], v.data[:n], ecc.MultiExpConfig{NbTasks: G2Tasks()})
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
