//go:build cuda

package cuda

/*
#include <stdlib.h>
#include "api.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// DeviceCount returns the number of CUDA devices; an error wrapping
// ErrNoDevice when the driver finds none.
func DeviceCount() (int, error) {
	var n C.int
	if err := check(C.pl_device_count(&n)); err != nil {
		return 0, fmt.Errorf("cuda: count devices: %w", err)
	}
	if n == 0 {
		return 0, fmt.Errorf("cuda: count devices: %w", ErrNoDevice)
	}
	return int(n), nil
}

func deviceInfo(i int) (DeviceInfo, error) {
	var name [256]C.char
	var total, free C.uint64_t
	var sms C.int
	if err := check(C.pl_device_info(C.int(i), &name[0], C.int(len(name)), &total, &free, &sms)); err != nil {
		return DeviceInfo{}, fmt.Errorf("cuda: info of device %d: %w", i, err)
	}
	return DeviceInfo{Index: i, Name: C.GoString(&name[0]), MemTotal: uint64(total), MemFree: uint64(free), Multiprocessor: int(sms)}, nil
}

// Devices lists the devices with their memory.
func Devices() ([]DeviceInfo, error) {
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, n)
	for i := range out {
		if out[i], err = deviceInfo(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Device is one GPU with its resident bases, of any group of any curve.
type Device struct {
	index int
	opts  Options

	mu     sync.Mutex
	bases  map[basesKey]resident
	closed bool
}

// resident is a *Bases[A] of any point type A.
type resident interface{ base() *bases }

func (b *Bases[A]) base() *bases { return &b.bases }

// basesKey names resident bases: a group of a curve ("g1", "g2") and the
// caller's key.
type basesKey struct {
	curve Curve
	group string
	key   string
}

// Open prepares device index (its stream-ordered memory pool keeps freed
// memory instead of trimming at synchronization points); its streams'
// kernels run as opts says. Options out of range are an error naming
// the field.
func Open(index int, opts Options) (*Device, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: open device %d: %w", index, err)
	}
	if _, err := DeviceCount(); err != nil {
		return nil, err
	}
	if err := check(C.pl_device_init(C.int(index))); err != nil {
		return nil, fmt.Errorf("cuda: open device %d: %w", index, err)
	}
	return &Device{index: index, opts: opts, bases: map[basesKey]resident{}}, nil
}

// Options are the options the device was opened with.
func (d *Device) Options() Options { return d.opts }

// Index is the CUDA device ordinal.
func (d *Device) Index() int { return d.index }

// Info returns the device's name and current memory.
func (d *Device) Info() (DeviceInfo, error) { return deviceInfo(d.index) }

// PoolUsage reports the device's stream-ordered pool, which every kernel
// temporary and stream-ordered allocation comes from: the bytes in use
// and the most in use at once since the last reset; reset starts a new
// mark from now.
func (d *Device) PoolUsage(reset bool) (used, high uint64, err error) {
	var u, h C.uint64_t
	r := C.int(0)
	if reset {
		r = 1
	}
	if err := check(C.pl_pool_usage(C.int(d.index), &u, &h, r)); err != nil {
		return 0, 0, fmt.Errorf("cuda: pool usage of device %d: %w", d.index, err)
	}
	return uint64(u), uint64(h), nil
}

// SelfTest checks the device's field multiplication (PTX carry chains)
// against the plain CIOS reference on random inputs, every curve's
// fields.
func (d *Device) SelfTest(seed uint64) error {
	var bad C.int
	if err := check(C.pl_selftest(C.int(d.index), C.uint64_t(seed), &bad)); err != nil {
		return fmt.Errorf("cuda: self test on device %d: %w", d.index, err)
	}
	if bad != 0 {
		return fmt.Errorf("cuda: self test on device %d: %d multiplications differ", d.index, int(bad))
	}
	return nil
}

// bases is a resident vector of points. Kernels that read it hold the read
// lock until their results are back on the host; Evict takes the write
// lock, so it frees the memory only after them.
type bases struct {
	key string
	mu  sync.RWMutex
	ptr unsafe.Pointer // nil once evicted
	n   int
	// pointBytes is a point's size (its group's affine points).
	pointBytes int
	// window is the c of a precomputed table (LoadG1Table): ptr holds
	// TableRows(c) rows of n points, row w the bases times 2^(c·w), row 0
	// the bases themselves. 0: the bases alone.
	window int
}

// TableRows is the rows of a precomputed table for window c: one a
// signed c-bit digit of a 255-bit scalar, ceil(256/c).
func TableRows(c int) int { return (256 + c - 1) / c }

// rows is the rows of points resident: TableRows(window), or 1.
func (b *bases) rows() int { return rowsFor(b.window) }

// Window is the c of the bases' precomputed table, 0 when they have none.
func (b *bases) Window() int { return b.window }

// Len is the number of points.
func (b *bases) Len() int { return b.n }

// use runs f with the device pointer under the read lock; evicted bases
// are an error naming the key.
func (b *bases) use(what string, f func(p unsafe.Pointer) error) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.ptr == nil {
		return fmt.Errorf("cuda: %s: bases %q used after Evict", what, b.key)
	}
	return f(b.ptr)
}

// free releases the memory after every kernel holding the read lock.
func (b *bases) free(dev int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ptr == nil {
		return nil
	}
	err := check(C.pl_free(C.int(dev), b.ptr))
	b.ptr = nil
	return err
}

// Bases is a resident vector of affine points A of one group of one
// curve (Group.Load).
type Bases[A any] struct{ bases }

// G1Bases is a resident vector of BLS12-381 G1 affine points.
type G1Bases = Bases[curve.G1Affine]

// G2Bases is a resident vector of BLS12-381 G2 affine points.
type G2Bases = Bases[curve.G2Affine]

// load copies bytes to a new device allocation of rows times their size
// through a private stream; with rows > 1, fill then computes the other
// rows from the first on that stream.
func (d *Device) load(what string, src unsafe.Pointer, bytes, rows int, fill func(s *Stream, p unsafe.Pointer) C.int) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if err := check(C.pl_malloc(C.int(d.index), &p, C.size_t(max(bytes*rows, 1)))); err != nil {
		return nil, fmt.Errorf("cuda: load %s on device %d: %w", what, d.index, err)
	}
	s, err := d.NewStream()
	if err != nil {
		C.pl_free(C.int(d.index), p)
		return nil, err
	}
	defer s.Close()
	if bytes > 0 {
		if err := check(C.pl_h2d_staged(s.s, p, src, C.size_t(bytes))); err != nil {
			C.pl_free(C.int(d.index), p)
			return nil, fmt.Errorf("cuda: load %s on device %d: %w", what, d.index, err)
		}
		if rows > 1 {
			if err := check(fill(s, p)); err != nil {
				C.pl_free(C.int(d.index), p)
				return nil, fmt.Errorf("cuda: precompute %s on device %d: %w", what, d.index, err)
			}
		}
	}
	if err := s.Sync(); err != nil {
		C.pl_free(C.int(d.index), p)
		return nil, err
	}
	return p, nil
}

// LoadG1 makes BLS12-381 G1 points resident under key; a key already
// loaded returns the resident vector (Group.Load on BLS12381G1).
func (d *Device) LoadG1(key string, points []curve.G1Affine) (*G1Bases, error) {
	return BLS12381G1.Load(d, key, points)
}

// LoadG1Table is LoadG1 with a precomputed table for window c
// (Group.LoadTable on BLS12381G1).
func (d *Device) LoadG1Table(key string, points []curve.G1Affine, c int) (*G1Bases, error) {
	return BLS12381G1.LoadTable(d, key, points, c)
}

// LoadG2 is LoadG1 for G2 points.
func (d *Device) LoadG2(key string, points []curve.G2Affine) (*G2Bases, error) {
	return BLS12381G2.Load(d, key, points)
}

// LoadG2Table is LoadG1Table for G2 points.
func (d *Device) LoadG2Table(key string, points []curve.G2Affine, c int) (*G2Bases, error) {
	return BLS12381G2.LoadTable(d, key, points, c)
}

// checkTable checks a table's window for n points: 0 (none) or 4..24,
// with fewer than 2^31 points in all (the kernels' 31-bit point indices).
func checkTable(c, n int) error {
	if c == 0 {
		return nil
	}
	if c < 4 || c > 24 {
		return fmt.Errorf("precomputed table window %d is not in [4, 24]", c)
	}
	if TableRows(c)*n >= 1<<31 {
		return fmt.Errorf("a precomputed table of %d rows of %d points is over the kernels' 2^31 points", TableRows(c), n)
	}
	return nil
}

func rowsFor(c int) int {
	if c == 0 {
		return 1
	}
	return TableRows(c)
}

// Loaded reports whether bases of any group are resident under key.
func (d *Device) Loaded(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k := range d.bases {
		if k.key == key {
			return true
		}
	}
	return false
}

// Close frees the resident bases; streams must be closed first.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var first error
	for k, b := range d.bases {
		if err := b.base().free(d.index); err != nil && first == nil {
			first = fmt.Errorf("cuda: free %s %s %q on device %d: %w", k.curve, k.group, k.key, d.index, err)
		}
	}
	d.bases = nil
	return first
}

// Evict frees the bases resident under key (of every group: G1, G2 or
// both, of any curve) once the kernels reading them have returned; later
// calls with their handles fail. It fails, naming the key, when nothing
// is resident under key.
func (d *Device) Evict(key string) error {
	d.mu.Lock()
	var gone []basesKey
	var freed []*bases
	for k, b := range d.bases {
		if k.key == key {
			gone = append(gone, k)
			freed = append(freed, b.base())
			delete(d.bases, k)
		}
	}
	d.mu.Unlock()
	if len(gone) == 0 {
		return fmt.Errorf("cuda: evict %q on device %d: no bases resident under that key", key, d.index)
	}
	var errs []error
	for i, b := range freed {
		if err := b.free(d.index); err != nil {
			errs = append(errs, fmt.Errorf("cuda: evict %s %s %q on device %d: %w", gone[i].curve, gone[i].group, key, d.index, err))
		}
	}
	return errors.Join(errs...)
}

// Resident is the bytes of the bases resident on the device.
func (d *Device) Resident() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n uint64
	for _, r := range d.bases {
		b := r.base()
		n += uint64(b.n*b.rows()) * uint64(b.pointBytes)
	}
	return n
}
