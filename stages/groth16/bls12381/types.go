package groth16

import (
	"runtime"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// Solution is a partition's solved R1CS.
type Solution struct {
	// Wires holds every wire value: the constant one, the public inputs,
	// then the secret and internal wires.
	Wires []fr.Element
	// A, B, C are the constraints' evaluations (one per constraint, not
	// padded to the domain).
	A, B, C []fr.Element
	// Commitments are the Pedersen commitments of the circuit's
	// commitments (api.Commit), in order; none without.
	Commitments []curve.G1Affine
}

// MSMInputs are the scalars of the G1 and G2 MSMs, aligned with the
// proving key's bases: A with pk.G1.A, B with pk.G1.B and pk.G2.B, K with
// pk.G1.K. When ones are split off, a scalar equal to one is set to zero in
// the vector (zeros cost nothing in an MSM) and its index listed in Ones*.
type MSMInputs struct {
	// Solution carries a, b, c on to vram_stage.
	Solution *Solution
	// Form is the representation of A, B and K.
	Form device.Form
	// A, B, K are the MSM scalars in Form.
	A, B, K []fr.Element
	// BMont is B in Montgomery form, for a G2 MSM on the host; it is B
	// itself when Form is FormMontgomery.
	BMont []fr.Element
	// PoK are the scalars of the commitments' folded proof of knowledge
	// in Form, aligned with the commitment keys' BasisExpSigma
	// concatenated; nil without commitments.
	PoK []fr.Element
	// OnesA, OnesB, OnesK index the scalars equal to one.
	OnesA, OnesB, OnesK []int32
	// Zeros counts the scalars equal to zero, over A, B and K.
	Zeros int
}

// G2MSM is the G2 part of B: the MSM of pk.G2.B with the B scalars (ones
// included), without β₂ and s·δ₂.
type G2MSM struct {
	B curve.G2Jac
}

// Bases are the proving key's vectors resident on one device; PoK is
// the commitment keys' BasisExpSigma concatenated (nil without
// commitments).
type Bases struct {
	A, B, K, Z, PoK device.G1Bases
}

// DeviceBuffers are a partition's vectors on its device and the stream
// they were uploaded on. gpu_compute consumes them: it frees the vectors
// and closes the stream. If it never runs (the job failed or was cancelled
// in between), the runtime releases them (Release), and a cleanup attached
// by vram_stage frees them once the buffers are garbage: device memory
// does not leak with the job.
//
// Deferred buffers (vram_stage's on_oom: upload_in_compute after an
// out-of-memory error) hold the stream and the host vectors but no device
// vectors: gpu_compute allocates and uploads them itself.
type DeviceBuffers struct {
	// Device is the index the buffers live on.
	Device int
	Stream cdev.Stream
	Bases  *Bases
	// ABC are a, b, c padded to the domain cardinality.
	ABC [3]device.Vector
	// WA, WB, WK are the MSM scalars (MSMInputs.A, B, K); WP is
	// MSMInputs.PoK's (nil without commitments).
	WA, WB, WK, WP device.Vector
	// Commitments are the solution's, passed on to the proof.
	Commitments []curve.G1Affine
	// Ones are MSMInputs' OnesA, OnesB, OnesK.
	OnesA, OnesB, OnesK []int32
	// Deferred says the vectors are not on the device yet: vram_stage ran
	// out of memory under on_oom: upload_in_compute and gpu_compute
	// uploads them.
	Deferred bool

	// host is the partition's host vectors while gpu_compute may still
	// have to upload them (deferred buffers, until gpu_compute succeeds).
	host *MSMInputs
	res  *residency
}

// residency owns what a DeviceBuffers holds on the device, apart from the
// DeviceBuffers itself so that a cleanup can release it.
type residency struct {
	mu     sync.Mutex
	stream cdev.Stream
	vecs   []device.Vector
}

func (r *residency) hold(v device.Vector) {
	r.mu.Lock()
	r.vecs = append(r.vecs, v)
	r.mu.Unlock()
}

// free releases v now if it is still held.
func (r *residency) free(v device.Vector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, h := range r.vecs {
		if h == v {
			r.stream.Free(v)
			r.vecs = append(r.vecs[:i], r.vecs[i+1:]...)
			return
		}
	}
}

// freeVectors releases every vector still held; the stream stays open.
func (r *residency) freeVectors() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stream == nil {
		return
	}
	for _, v := range r.vecs {
		r.stream.Free(v)
	}
	r.vecs = nil
}

// release frees every vector still held and closes the stream, once.
func (r *residency) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stream == nil {
		return
	}
	for _, v := range r.vecs {
		r.stream.Free(v)
	}
	r.vecs = nil
	r.stream.Close()
	r.stream = nil
}

func newDeviceBuffers(dev int, st cdev.Stream, bases *Bases) *DeviceBuffers {
	r := &residency{stream: st}
	d := &DeviceBuffers{Device: dev, Stream: st, Bases: bases, res: r}
	runtime.AddCleanup(d, func(r *residency) { r.release() }, r)
	return d
}

// free releases every vector and closes the stream.
func (d *DeviceBuffers) free() {
	d.res.release()
	d.dropVectors()
	d.Stream = nil
	d.host = nil
	d.Deferred = false
}

// dropVectors frees the device vectors but keeps the stream, so that the
// buffers can be uploaded again (deferred buffers).
func (d *DeviceBuffers) dropVectors() {
	d.res.freeVectors()
	d.ABC = [3]device.Vector{}
	d.WA, d.WB, d.WK, d.WP = nil, nil, nil, nil
}

// G1MSMs are gpu_compute's results, ones included, without the key's
// α, β, δ terms.
type G1MSMs struct {
	// A is Σ wA·G1.A, B1 is Σ wB·G1.B, K is Σ wK·G1.K, H is Σ h·G1.Z;
	// PoK is the folded proof of knowledge of the commitments, Σ p·BasisExpSigma.
	A, B1, K, H, PoK curve.G1Jac
	// Commitments are the partition's Pedersen commitments (synthesize's).
	Commitments []curve.G1Affine
}
