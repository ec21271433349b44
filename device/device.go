// Package device is the accelerator contract every proof family runs on.
//
// A Backend is a set of devices of one kind: "cpu" (package device/cpu,
// gnark-crypto on host memory, always available, optionally presenting
// several emulated devices; it is the reference) or "cuda" (package
// device/cuda, the kernels of package cuda, build tag cuda). A family's
// stages never know which one they run on: they upload vectors, run NTTs,
// element-wise vector operations, MSMs and batch additions through a
// Stream, and read back scalars or curve points. A family's memory
// estimates take what a backend holds beyond that from its MemoryModel.
//
// Programs open backends by name through a Registry (package
// device/builtin lists the shipped ones), each with its own typed
// options; this package imports no backend.
//
// Conventions shared by every implementation:
//   - Scalars cross this interface in Montgomery form (gnark-crypto's
//     fr.Element as it is in memory). A device that wants canonical form
//     converts on its side; WantsCanonical lets a stage do that conversion
//     once on the host instead, passing FormCanonical to Upload.
//   - Bases (a key's point vectors) are loaded once per device under a key
//     and stay resident until Evict(key) or until the backend is closed;
//     Resident reports their bytes.
//   - NTTs are gnark-crypto's fft.Domain transforms with the same
//     arguments: FFT and FFTInverse in either decimation (DIF: natural
//     order in, bit-reversed out; DIT: the reverse), optionally on the
//     domain's coset (domain.FrMultiplicativeGen), over the first
//     domain.Cardinality scalars of a vector.
//   - Element-wise operations write dst from their inputs; dst may be one
//     of them. Every vector of one call has the same length.
//   - A Stream's work is ordered. Every method that takes a Stream is safe
//     for concurrent use by different streams; a Stream itself belongs to
//     one worker at a time. No method may synchronize the whole device:
//     one worker's uploads must be able to overlap another worker's
//     kernels. (Evict is the exception: it waits for the work that uses
//     the bases it frees, and is not for a hot path.)
//
// Operations a single family needs fused (Groth16's H step) are not in the
// contract: a family declares them as an interface of its own, finds them
// with As, and falls back on the contract's operations when a backend
// lacks them. Kernel spans come from the decorator in package
// device/traced, never from the stages.
package device

import (
	"context"
	"errors"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// Form says how the scalars in a host slice are represented.
type Form int

const (
	// FormMontgomery is gnark-crypto's in-memory representation.
	FormMontgomery Form = iota
	// FormCanonical is the plain integer, little-endian 64-bit limbs.
	FormCanonical
)

// ErrOutOfMemory is wrapped by errors that a later retry may not hit
// (device memory exhausted). The runtime treats it as retryable.
var ErrOutOfMemory = errors.New("device out of memory")

// ErrNoDevice is wrapped when a backend has no usable device.
var ErrNoDevice = errors.New("no device")

// Info describes one device.
type Info struct {
	Index    int
	Name     string // e.g. "NVIDIA H200" or "cpu (emulated device 0)"
	MemTotal uint64 // bytes; 0 when unknown
	MemFree  uint64 // bytes; 0 when unknown
}

// Backend is a set of devices of one kind.
type Backend interface {
	// Name is "cpu" or "cuda".
	Name() string
	// Devices lists the devices with their memory now; the slice index
	// equals Info.Index.
	Devices() []Info
	// Device returns device i, 0 <= i < len(Devices()).
	Device(i int) (Device, error)
	// Memory is what the devices hold beyond the bases and vectors
	// allocated through the contract, as the backend was opened.
	Memory() MemoryModel
	// Close frees every device resource, resident bases included.
	Close() error
}

// Device is one accelerator, or one emulated device on the CPU backend.
type Device interface {
	// Info describes the device, with its memory now.
	Info() Info
	// WantsCanonical reports whether MSM scalars are best uploaded in
	// canonical form.
	WantsCanonical() bool
	// SumsUnits reports whether the device's MSMs find their scalars of 1
	// and -1 and sum those points apart themselves, so that a stage need
	// not list them (sha256's wires are 30% ones).
	SumsUnits() bool
	// LoadG1 makes points resident under key. Loading a key already
	// resident is a no-op returning the same handle.
	LoadG1(key string, points []curve.G1Affine) (G1Bases, error)
	// LoadG2 is LoadG1 for G2 points.
	LoadG2(key string, points []curve.G2Affine) (G2Bases, error)
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

// G1Bases is a resident vector of G1 affine points.
type G1Bases interface{ Len() int }

// G2Bases is a resident vector of G2 affine points.
type G2Bases interface{ Len() int }

// Vector is a vector of scalars in device memory.
type Vector interface{ Len() int }

// Stream is an ordered queue of device work owned by one worker. Methods
// returning results wait for the work they depend on; Upload may return
// before the copy completes (src must stay untouched until Sync or until a
// later call on the same stream returns a result), and the operations that
// return only an error may return once their work is queued: a failure of
// queued work shows in the next call that waits (Sync, Download, an MSM).
type Stream interface {
	// Alloc returns an uninitialised vector of n scalars; it fails with an
	// error wrapping ErrOutOfMemory when the device is full.
	Alloc(n int) (Vector, error)
	// Free releases v; freeing must not synchronize the device.
	Free(v Vector)
	// Upload copies src into dst[0:len(src)]; the rest of dst is zeroed.
	Upload(dst Vector, src []fr.Element, form Form) error
	// Download copies v into dst in Montgomery form.
	Download(dst []fr.Element, v Vector) error

	// FFT is domain.FFT(v[:n], dec) (with fft.OnCoset() when coset), n
	// the domain's cardinality, v.Len() >= n.
	FFT(ctx context.Context, v Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error
	// FFTInverse is domain.FFTInverse(v[:n], dec), as FFT.
	FFTInverse(ctx context.Context, v Vector, domain *fft.Domain, dec fft.Decimation, coset bool) error
	// BitReverse permutes v[:n] into bit-reversed order, n a power of two,
	// v.Len() >= n.
	BitReverse(ctx context.Context, v Vector, n int) error

	// Mul sets dst[i] = a[i] * b[i].
	Mul(ctx context.Context, dst, a, b Vector) error
	// Add sets dst[i] = a[i] + b[i].
	Add(ctx context.Context, dst, a, b Vector) error
	// Sub sets dst[i] = a[i] - b[i].
	Sub(ctx context.Context, dst, a, b Vector) error
	// Scale sets dst[i] = a[i] * c.
	Scale(ctx context.Context, dst, a Vector, c fr.Element) error
	// AddScalar sets dst[i] = a[i] + c.
	AddScalar(ctx context.Context, dst, a Vector, c fr.Element) error

	// MSMG1 returns sum_i scalars[i] * bases[i] for i < n.
	MSMG1(ctx context.Context, bases G1Bases, scalars Vector, n int) (curve.G1Jac, error)
	// MSMG2 is MSMG1 over G2.
	MSMG2(ctx context.Context, bases G2Bases, scalars Vector, n int) (curve.G2Jac, error)
	// SumG1 returns sum of bases[i] for i in indices (batch addition of the
	// bases whose scalar is one).
	SumG1(ctx context.Context, bases G1Bases, indices []int32) (curve.G1Jac, error)
	// SumG2 is SumG1 over G2.
	SumG2(ctx context.Context, bases G2Bases, indices []int32) (curve.G2Jac, error)

	// Sync waits for all work queued on this stream.
	Sync() error
	// Close releases the stream.
	Close() error
}

// Timer is implemented by streams that can time their own work on the
// device (the CUDA backend, with CUDA events). It is optional: callers
// fall back to wall time on streams without it (the CPU backend, whose
// work is synchronous).
type Timer interface {
	// Time runs f, which queues work on this stream, waits for that work
	// to finish and returns f's error and the device time from before the
	// first to after the last work f queued, on the stream's timeline
	// (work queued earlier on the stream is not counted; host work inside
	// f while the stream is idle is). ok is false when the device could
	// not time the work; gpu is then zero and only err counts.
	Time(f func() error) (gpu time.Duration, ok bool, err error)
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
