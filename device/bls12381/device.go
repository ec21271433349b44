// Package bls12381 is the device contract's BLS12-381 side: a device of
// a backend (package device) for that curve's scalars and points, the
// streams one worker queues work on, and the optional capabilities found
// on them. Its BN254 copy, package device/bn254, is generated from this
// source (internal/curvegen); the conventions every implementation keeps
// are package device's.
package bls12381

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
)

// Curve is the curve of this package's devices.
const Curve = ecc.BLS12_381

// Of is device i of backend b for this package's curve.
func Of(b device.Backend, i int) (Device, error) {
	d, err := b.Device(Curve, i)
	if err != nil {
		return nil, err
	}
	dev, ok := d.(Device)
	if !ok {
		return nil, fmt.Errorf("%s backend: device %d for %s is a %T, not this curve's device", b.Name(), i, Curve, d)
	}
	return dev, nil
}

// Device is one accelerator, or one emulated device on the CPU backend.
type Device interface {
	// Info describes the device, with its memory now.
	Info() device.Info
	// WantsCanonical reports whether MSM scalars are best uploaded in
	// canonical form.
	WantsCanonical() bool
	// SumsUnits reports whether the device's MSMs find their scalars of 1
	// and -1 and sum those points apart themselves, so that a stage need
	// not list them (sha256's wires are 30% ones).
	SumsUnits() bool
	// LoadG1 makes points resident under key. Loading a key already
	// resident is a no-op returning the same handle.
	LoadG1(key string, points []curve.G1Affine) (device.G1Bases, error)
	// LoadG2 is LoadG1 for G2 points.
	LoadG2(key string, points []curve.G2Affine) (device.G2Bases, error)
	// Evict frees the bases resident under key (G1, G2 or both), after
	// the work already using them; their handles must not be used again
	// (a later call with one fails). It fails, naming the key, when
	// nothing is resident under key.
	Evict(key string) error
	// Resident is the bytes of bases resident on the device.
	Resident() uint64
	// NewStream returns a stream for one worker.
	NewStream() (Stream, error)
}

// Stream is an ordered queue of device work owned by one worker. Methods
// returning results wait for the work they depend on; Upload may return
// before the copy completes (src must stay untouched until Sync or until a
// later call on the same stream returns a result), and the operations that
// return only an error may return once their work is queued: a failure of
// queued work shows in the next call that waits (Sync, Download, an MSM).
type Stream interface {
	// Alloc returns an uninitialised vector of n scalars; it fails with an
	// error wrapping device.ErrOutOfMemory when the device is full.
	Alloc(n int) (device.Vector, error)
	// Free releases v; freeing must not synchronize the device.
	Free(v device.Vector)
	// Upload copies src into dst[0:len(src)]; the rest of dst is zeroed.
	Upload(dst device.Vector, src []fr.Element, form device.Form) error
	// Download copies v into dst in Montgomery form.
	Download(dst []fr.Element, v device.Vector) error

	// FFT is domain.FFT(v[:n], dec) (with fft.OnCoset() when coset), n
	// the domain's cardinality, v.Len() >= n.
	FFT(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error
	// FFTInverse is domain.FFTInverse(v[:n], dec), as FFT.
	FFTInverse(ctx context.Context, v device.Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error
	// BitReverse permutes v[:n] into bit-reversed order, n a power of two,
	// v.Len() >= n.
	BitReverse(ctx context.Context, v device.Vector, n int) error

	// Mul sets dst[i] = a[i] * b[i].
	Mul(ctx context.Context, dst, a, b device.Vector) error
	// Add sets dst[i] = a[i] + b[i].
	Add(ctx context.Context, dst, a, b device.Vector) error
	// Sub sets dst[i] = a[i] - b[i].
	Sub(ctx context.Context, dst, a, b device.Vector) error
	// Scale sets dst[i] = a[i] * c.
	Scale(ctx context.Context, dst, a device.Vector, c fr.Element) error
	// AddScalar sets dst[i] = a[i] + c.
	AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error

	// MSMG1 returns sum_i scalars[i] * bases[i] for i < n.
	MSMG1(ctx context.Context, bases device.G1Bases, scalars device.Vector, n int) (curve.G1Jac, error)
	// MSMG2 is MSMG1 over G2.
	MSMG2(ctx context.Context, bases device.G2Bases, scalars device.Vector, n int) (curve.G2Jac, error)
	// SumG1 returns sum of bases[i] for i in indices (batch addition of the
	// bases whose scalar is one).
	SumG1(ctx context.Context, bases device.G1Bases, indices []int32) (curve.G1Jac, error)
	// SumG2 is SumG1 over G2.
	SumG2(ctx context.Context, bases device.G2Bases, indices []int32) (curve.G2Jac, error)

	// Sync waits for all work queued on this stream.
	Sync() error
	// Close releases the stream.
	Close() error
}

// Wrapper is implemented by stream decorators (package device/traced):
// Unwrap returns the stream they decorate.
type Wrapper interface {
	Unwrap() Stream
}

// As finds an optional capability T (Timer, or a family's fused
// operation) on st or on the streams it decorates, outermost first, as
// errors.As does for errors.
func As[T any](st Stream) (T, bool) {
	for st != nil {
		if c, ok := st.(T); ok {
			return c, true
		}
		w, ok := st.(Wrapper)
		if !ok {
			break
		}
		st = w.Unwrap()
	}
	var zero T
	return zero, false
}
