// Package cuda runs proof kernels on NVIDIA GPUs over BLS12-381, the one
// curve its kernels are written for today (cuda/csrc's field and curve
// types; another curve means templating them, not copying them): Fr
// NTTs (gnark's fft.Domain semantics), element-wise Fr vector
// operations, Pippenger MSMs over G1 and G2 (over resident bases, their
// precomputed tables, or bases kept in host memory a chunk at a time),
// batch addition of resident bases, and the fixed-base multiplications
// of a key setup. It knows no proof family but for one fused kernel:
// Groth16's H step (Stream.ComputeH, seven NTTs and the element-wise
// steps between them in one call), which package device/cuda offers as
// the optional capability stages/groth16.HComputer; every other family,
// and Groth16 on another backend, runs on the generic operations.
//
// The contract:
//   - The kernels live in cuda/csrc and build with `make -C cuda` into
//     cuda/build/libprooflane_cuda.a; the Go API links it under the `cuda`
//     build tag. Built without the tag, every entry point returns an error
//     wrapping ErrNotBuilt. The figures of the kernels' memory (Window,
//     TableWindow, MSMScratch, Options.AffineScratch, ContextBytes,
//     HostChunk) are plain Go in every build, for the device memory model.
//   - Options, given to Open, say how a device's kernels run (a forced
//     MSM window, the batch-affine accumulation's cap, profiling); the
//     library reads no environment.
//   - Scalars are fr.Element values in Montgomery form unless an Upload says
//     they are canonical; points are gnark-crypto affine points; results
//     come back as gnark-crypto Jacobian points.
//   - A Device keeps bases resident under a key until it is closed. A
//     Stream belongs to one worker at a time; its work is ordered, and no
//     method waits for anything but its own stream: temporaries are
//     allocated and freed stream-ordered (cudaMallocAsync/cudaFreeAsync on a
//     pool that never trims), so one worker's uploads overlap another's
//     kernels.
//   - Every CUDA return code and every launch is checked; errors wrap
//     ErrOutOfMemory (device memory exhausted, retryable) or ErrNoDevice
//     where that is the cause.
package cuda

import "errors"

// ErrNotBuilt is returned, wrapped, by every entry point of a binary built
// without the cuda build tag.
var ErrNotBuilt = errors.New("built without CUDA support; rebuild with -tags cuda after make cuda")

// ErrOutOfMemory is wrapped when device memory is exhausted.
var ErrOutOfMemory = errors.New("device out of memory")

// ErrNoDevice is wrapped when no CUDA device is present.
var ErrNoDevice = errors.New("no CUDA device")

// DeviceInfo describes one GPU.
type DeviceInfo struct {
	Index          int
	Name           string
	MemTotal       uint64
	MemFree        uint64
	Multiprocessor int
}
