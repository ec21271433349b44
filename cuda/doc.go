// Package cuda runs proof kernels on NVIDIA GPUs over BLS12-381 and
// BN254: Fr NTTs (gnark's fft.Domain semantics), element-wise Fr vector
// operations, Pippenger MSMs over G1 and G2 (over resident bases, their
// precomputed tables, or bases kept in host memory a chunk at a time),
// batch addition of resident bases, and the fixed-base multiplications
// of a key setup. It knows no proof family but for one fused kernel:
// Groth16's H step (ComputeH, seven NTTs and the element-wise steps
// between them in one call), which package device/cuda offers as the
// optional capability stages/groth16.HComputer; every other family,
// and Groth16 on another backend, runs on the generic operations.
//
// The curves: the kernels are one source templated on the field and
// curve parameters (cuda/csrc/curves.cuh: the moduli, Montgomery
// constants, limb counts, the curves' b, Fp2's non-residue, Fr's
// 2-adicity), instantiated for each Curve; every C entry point whose
// data are a curve's takes its id (api.h's pl_curve). In Go each curve
// is a value of Field (BLS12381Fr, BN254Fr: vectors, NTTs, the vector
// operations, H) and of Group for each of its groups (BLS12381G1,
// BLS12381G2, BN254G1, BN254G2: bases, MSMs, sums, fixed-base
// multiplication), over gnark-crypto's types of that curve; one generic
// implementation. The Stream and Device methods that name gnark-crypto
// types (Upload, FFT, MSMG1, LoadG2, MulGeneratorG1, ...) are BLS12-381's,
// what callers written before the curve was a parameter get, unchanged.
// A Vector belongs to one curve (Stream.Alloc: BLS12-381; Field.Alloc:
// the field's) and an operation of another curve refuses it.
//
// The contract:
//   - The kernels live in cuda/csrc and build with `make -C cuda` into
//     cuda/build/libprooflane_cuda.a; the Go API links it under the `cuda`
//     build tag. Built without the tag, every entry point returns an error
//     wrapping ErrNotBuilt. The figures of the kernels' memory (Window,
//     TableWindow, MSMScratch, Options.AffineScratch, ContextBytes,
//     HostChunk) and Curve are plain Go in every build, for the device
//     memory model.
//   - Options, given to Open, say how a device's kernels run (a forced
//     MSM window, the batch-affine accumulation's cap, profiling); the
//     library reads no environment. The same tuning serves both curves.
//   - Scalars are the curve's fr.Element values in Montgomery form unless
//     an Upload says they are canonical; points are gnark-crypto affine
//     points of the curve; results come back as its Jacobian points.
//   - A Device keeps bases resident under a key (a key a group of a
//     curve) until it is closed or they are evicted. A Stream belongs to
//     one worker at a time; its work is ordered, and no method waits for
//     anything but its own stream: temporaries are allocated and freed
//     stream-ordered (cudaMallocAsync/cudaFreeAsync on a pool that never
//     trims), so one worker's uploads overlap another's kernels.
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
