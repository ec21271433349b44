package plonk

import (
	"fmt"
	"os"
	"strconv"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/internal/units"
	"github.com/prooflane/prooflane/stages/family"
)

// Host memory of a PLONK run, per row of the key's domain n (the
// constraints and public inputs rounded up to a power of two), from peak
// RSS measured with GNU time on the chain circuit, CPU backend, a 2-core
// machine (docs/memory.md has the table and the command). An upper bound,
// as Groth16's (stages/groth16/prover/memory.go) is.
const (
	memBase          = 64 << 20 // the process, gnark and the runtime
	memSetupPerN     = 2 << 10  // setup: the SRS drawn, its Lagrange form, gnark's setup
	memKeyPerN       = 4 << 10  // prove: the constraint system, the key and what the stages derive from it, a device step's vectors of 4n
	memPartitionPerN = 1 << 10  // prove: one partition in flight (solution, blinded L, R, O, Z, h)
	memCheckFromSize = 1 << 18  // below this size, no estimate (nothing is refused), as for Groth16
)

// Device memory of a PLONK run, per row of the domain n, calibrated on
// the H200 runs of docs/plonk.md (chain, n = 2^20: nvidia-smi's peak 2.4
// GiB with one device step at a time, 4.0 GiB with two). What the
// backend holds besides (its context, its MSMs' scratch beyond the
// window 16 these figures were measured with) comes from its
// device.MemoryModel.
const (
	// srsPointBytes is a resident SRS point: G1 affine; the canonical SRS
	// holds n+3 of them, the Lagrange SRS n.
	srsPointBytes = curve.SizeOfG1AffineUncompressed
	// deviceStepPerN is one device step's vectors at its peak, the
	// quotient's: some 11 vectors of 4n scalars (1408 bytes a row) and the
	// MSMs' digits and buckets, with what the pools keep.
	deviceStepPerN = 1600
	// calibratedWindow is the window of the MSMs deviceStepPerN was
	// measured with.
	calibratedWindow = 16
)

// constraintsPerSize bounds a shipped circuit's PLONK constraints
// (SparseR1CS) at a size: at most slope×size+offset, and its public
// inputs, so the memory checks know the domain without compiling a
// circuit of millions of constraints first. Measured by compiling
// (TestDomainBoundCoversTheShippedCircuits pins them): chain has 2·size-1
// constraints, mimc 1.30 to 1.34 a unit of size, sha256 1.6 to 3.1 (its
// ratio grows with the size towards 3.1).
var constraintsPerSize = map[string]struct {
	slope          float64
	offset, public int
}{
	"chain":  {2, -1, 1},
	"mimc":   {1.375, 0, 1},
	"sha256": {3.25, 0, 8},
}

// domainBound is an upper bound of the domain of circuit's key at size:
// for a circuit not in constraintsPerSize, that of 4×size constraints
// (SizeRange's bound).
func domainBound(circuit string, size int) uint64 {
	c, ok := constraintsPerSize[circuit]
	if !ok {
		c.slope, c.public = 4, 8
	}
	rows := int64(c.slope*float64(max(size, 1))+0.999999) + int64(c.offset+c.public)
	return ecc.NextPowerOfTwo(uint64(max(rows, 2)))
}

// HostMemory estimates the peak host memory of proving req's key with
// inFlight partitions at once, including the setup when it has to run
// (req.Force, or no key cached in req.Dir; no Dir: taken as cached); 0
// below a size of 2^18.
func (f Family) HostMemory(req family.KeyRequest, _ map[string]string, inFlight int) (uint64, bool) {
	sys := req.System
	if sys.Size < memCheckFromSize {
		return 0, false
	}
	setup := req.Force
	if !setup && req.Dir != "" {
		_, err := os.Stat(Cache{Dir: req.Dir}.Path(sys.Name, sys.Size))
		setup = err != nil
	}
	return hostEstimate(domainOf(sys), inFlight, setup), setup
}

// domainOf is the domain of sys's key: its constraint system's when it
// has one, a bound of a built-in circuit's at its size, or that of a
// compiled system's constraint count with a few public inputs.
func domainOf(sys family.System) uint64 {
	if spr, ok := sys.CCS.(*cs.SparseR1CS); ok {
		return domainSize(spr)
	}
	if family.IsCompiled(sys.Name) {
		return ecc.NextPowerOfTwo(uint64(max(sys.Size, 1)) + 8)
	}
	return domainBound(sys.Name, sys.Size)
}

// hostEstimate is the peak host memory of proving on a domain of n with
// inFlight partitions at once, including the setup when it has to run.
func hostEstimate(n uint64, inFlight int, setup bool) uint64 {
	prove := memBase + n*memKeyPerN + n*memPartitionPerN*uint64(max(inFlight, 0))
	if setup {
		return max(prove, memBase+n*memSetupPerN)
	}
	return prove
}

// DeviceEstimate is the device memory of a PLONK run, by part.
type DeviceEstimate struct {
	// SRS is the key's canonical and Lagrange SRS, resident once per
	// device.
	SRS uint64
	// Steps is the vectors of the device steps running at once.
	Steps uint64
	// Concurrent is how many device steps that is.
	Concurrent int
	// Context is the backend's context (MemoryModel.Context).
	Context uint64
}

// Total is the estimate's sum.
func (e DeviceEstimate) Total() uint64 { return e.SRS + e.Steps + e.Context }

// EstimateDevice estimates the device memory of proving on a domain of n
// with concurrent device steps (each one partition's) on a device of a
// backend of memory model m at once; where a step's MSMs take a wider
// window than the calibration's (on CUDA from 2^23 points), what that
// adds (device.WiderWindowScratch) is counted.
func EstimateDevice(m device.MemoryModel, n uint64, concurrent int) DeviceEstimate {
	c := max(concurrent, 0)
	return DeviceEstimate{
		SRS:        (2*n + 3) * srsPointBytes,
		Steps:      (n*deviceStepPerN + device.WiderWindowScratch(m, device.G1, int(n), calibratedWindow)) * uint64(c),
		Concurrent: c,
		Context:    m.Context(),
	}
}

// DeviceMemory estimates a device's memory for a job of req's key on a
// backend of memory model m: the SRS, resident once, and the vectors of
// the device steps running at once. A device step holds its vectors only while it runs (it frees them
// before it returns), so at most perDevice of them, at most the
// pipeline's `resident` (plonk.yaml's gpu.{gpu}.mem capacity) and
// `device_streams` (its gpu.{gpu}.compute capacity) parameters when it
// has them; a pipeline with neither (plonk-single-lock) is counted at
// perDevice, an upper bound.
func (f Family) DeviceMemory(m device.MemoryModel, req family.KeyRequest, params map[string]string, perDevice int) (uint64, string, string) {
	concurrent, bound := max(perDevice, 1), false
	lower := "a smaller --size, or fewer partitions at once"
	for _, p := range []string{"device_streams", "resident"} {
		v, ok := params[p]
		if !ok {
			continue
		}
		// The first parameter reaching the least bound names the setting.
		if r, err := strconv.Atoi(v); err == nil && r > 0 && (r < concurrent || r == concurrent && !bound) {
			concurrent, bound = r, true
			if r > 1 {
				lower = fmt.Sprintf("fewer device steps at once (%s is %d: --set %s=%d) or a smaller --size", p, r, p, r-1)
			} else {
				lower = "a smaller --size"
			}
		}
	}
	n := domainOf(req.System)
	e := EstimateDevice(m, n, concurrent)
	parts := fmt.Sprintf("the kzg srs of a domain of %d %s, %d device step(s) at once %s",
		n, units.Bytes(e.SRS), e.Concurrent, units.Bytes(e.Steps))
	if e.Context > 0 {
		parts += ", context " + units.Bytes(e.Context)
	}
	return e.Total(), parts, lower
}

var (
	_ family.MemoryEstimator       = Family{}
	_ family.DeviceMemoryEstimator = Family{}
)
