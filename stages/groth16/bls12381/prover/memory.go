package prover

import (
	"os"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// hostCosts is a circuit's host memory per unit of its size (about a
// constraint), in bytes.
type hostCosts struct {
	// setup is a key setup's peak: the compiled system, the QAP's
	// vectors and the key being built (gnark's setup on the host, or
	// prooflane's with the bases made on a device, onDevice.setup).
	setup uint64
	// keys is the R1CS and proving key in memory while proving (the
	// CPU backend holds its resident bases by reference: no copy).
	keys uint64
	// partition is one partition in flight: its witness, a/b/c, and on
	// the CPU backend its emulated device's vectors and the MSMs' digits
	// and buckets.
	partition uint64
}

// hostShape is a circuit's costs on the host (the CPU backend, or a
// backend not known) and with a device of its own (CUDA), which holds the
// device work's vectors.
type hostShape struct{ onHost, onDevice hostCosts }

// The costs are calibrated on peak RSS (GNU time's %M) of prooflane
// setup and prove, CPU backend, on a 2-core machine at 2^16 and 2^18,
// and on the H200 runs of docs/scale.md at 2^24 (CUDA backend);
// docs/memory.md has the table and the commands, and
// TestHostEstimateCoversTheMeasuredPeaks holds it: every measured peak is
// covered, by at most 1.5 times.
const (
	memBase          = 128 << 20 // the process, gnark and the runtime
	memCheckFromSize = 1 << 18   // below this, no estimate (nothing is refused)
)

var (
	// chainShape: one dense wire per constraint. On a device: the setup
	// from the H200's chain 2^24 setup (26.2 GiB, 1,636 bytes a unit of
	// size, with the .r1cs encoded alongside); the rest not measured on
	// the host at scale: sha256's measured costs plus the difference of their key
	// files (.pk 578 bytes a constraint against 449, .r1cs 80 against 41,
	// the R1CS counted twice in memory), and 64 bytes more from the H200's
	// chain 2^26 prove (113.0 GiB with 4 partitions, 1,808 bytes a unit of
	// size). The partitions' host vectors (witness, a/b/c, the split
	// scalars) have the same lengths.
	chainShape = hostShape{
		onHost:   hostCosts{setup: 2 << 10, keys: 1280, partition: 1280},
		onDevice: hostCosts{setup: 1792, keys: 1216, partition: 160},
	}
	// sha256Shape: its constraints have long linear combinations (a
	// larger R1CS in memory) and its wires are mostly 0 or 1, many of its
	// B bases points at infinity (left out: a smaller key). On a device:
	// the H200's 4 partitions at 2^24 (21.9 GiB, 1,402 bytes a unit of
	// size), split between the keys (the .pk's 449 bytes, the R1CS and
	// the garbage of loading them) and a partition (its witness, a/b/c and
	// split scalars, 32 bytes each a constraint, and their garbage),
	// with 8 bytes more for synthesize's small solver (its int64 wires,
	// alive beside the field elements it fills; not measured on the H200
	// yet).
	sha256Shape = hostShape{
		onHost:   hostCosts{setup: 1664, keys: 1536, partition: 512},
		onDevice: hostCosts{setup: 1280, keys: 896, partition: 168},
	}
	// otherShape is a circuit not measured: the earlier rough bound for
	// circuits of about one wire per constraint, on the host or not.
	otherShape = hostShape{
		onHost:   hostCosts{setup: 3 << 10, keys: 2 << 10, partition: 1280},
		onDevice: hostCosts{setup: 3 << 10, keys: 2 << 10, partition: 1280},
	}
	// hostShapes are the shipped circuits'; mimc has chain's shape (one
	// wire per constraint) and is counted as chain.
	hostShapes = map[string]hostShape{"chain": chainShape, "mimc": chainShape, "sha256": sha256Shape}
)

// costsOf is circuit's costs, on a device of its own or on the host.
func costsOf(circuit string, onDevice bool) hostCosts {
	s, ok := hostShapes[circuit]
	if !ok {
		s = otherShape
	}
	if onDevice {
		return s.onDevice
	}
	return s.onHost
}

// hostG2PerC is what a G2 MSM on the host cores (g2_on: cpu, gnark-crypto's
// MultiExp: its digits and buckets, and their garbage) adds to a run on a
// device, per constraint of the key, for each such MSM running at once:
// the H200's sha256 2^26 prove of 4 partitions peaked at 98.35 GiB with
// g2_on: cpu and 92.19 GiB without, two G2 workers (49 bytes a
// constraint each, counted as 64).
const hostG2PerC = 64

// HostMemory estimates the peak host memory of proving req's key with
// inFlight partitions at once, including the setup when it has to run
// (req.Force, or no proving key cached in req.Dir; no Dir: taken as
// cached), per circuit and for the backend
// req.OnDevice says, with params' g2_on: cpu adding the host's G2 MSMs
// (g2_workers of them at most) on a device; 0 below 2^18 constraints.
func (Family) HostMemory(req family.KeyRequest, params map[string]string, inFlight int) (uint64, bool) {
	size, circuit := req.System.Size, req.System.Name
	if size < memCheckFromSize {
		return 0, false
	}
	setup := req.Force
	if !setup && req.Dir != "" {
		_, pk, _ := keys.Cache{Dir: req.Dir}.Paths(circuit, size)
		_, err := os.Stat(pk)
		setup = err != nil
	}
	hostG2 := 0
	if req.OnDevice && params["g2_on"] == "cpu" {
		hostG2 = min(positive(params["g2_workers"], 2), max(inFlight, 0))
	}
	return memEstimate(costsOf(circuit, req.OnDevice), size, inFlight, hostG2, setup), setup
}

// memEstimate returns the estimated peak host memory of proving size
// constraints with inFlight partitions at once at costs c and hostG2 G2
// MSMs on the host cores at once beside a device, including the setup
// when it has to run.
func memEstimate(c hostCosts, size, inFlight, hostG2 int, setup bool) uint64 {
	n := uint64(max(size, 0))
	prove := memBase + n*c.keys + n*c.partition*uint64(max(inFlight, 0)) + n*hostG2PerC*uint64(max(hostG2, 0))
	if setup {
		return max(prove, memBase+n*c.setup)
	}
	return prove
}
