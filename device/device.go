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
// This package is what every curve shares. Each device of a backend
// serves every curve: Backend.Device(curve, i) hands out that curve's
// device, whose type, with its Stream and the optional capabilities, is
// its curve's package: device/bls12381 (hand-written) and device/bn254
// (generated from it by internal/curvegen), taken with their Of.
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
	"errors"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
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

// ErrCurve is wrapped when a backend does not serve a curve.
var ErrCurve = errors.New("curve not served")

// Vector is a vector of scalars in device memory, allocated by a curve's
// Stream: its elements are that curve's scalars.
type Vector interface{ Len() int }

// G1Bases is a resident vector of a curve's G1 affine points.
type G1Bases interface{ Len() int }

// G2Bases is a resident vector of a curve's G2 affine points.
type G2Bases interface{ Len() int }

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
	// Device returns device i, 0 <= i < len(Devices()), for the curve c:
	// a value of that curve's Device type (package device/bls12381's for
	// ecc.BLS12_381, device/bn254's for ecc.BN254), which callers take
	// with that package's Of. It fails with an error wrapping ErrNoDevice
	// for an index out of range and ErrCurve for a curve the backend does
	// not serve. The devices of every curve share one device's memory.
	Device(c ecc.ID, i int) (any, error)
	// Memory is what the devices hold beyond the bases and vectors
	// allocated through the contract, as the backend was opened.
	Memory() MemoryModel
	// Close frees every device resource, resident bases included.
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
