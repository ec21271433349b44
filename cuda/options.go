package cuda

import "fmt"

// Options say how a Device's kernels run (Open). The zero value is the
// kernels' defaults; the fields other than MSMWindow and AffineMax are
// for measurements (docs/design/msm.md). The library reads no
// environment: a program that takes these settings from its users fills
// Options (the prooflane CLI from its environment variables, docs/gpu.md;
// cudabench from its flags).
type Options struct {
	// MSMWindow forces the window of every MSM over plain bases, 4 to
	// 24; 0 takes Window's choice for the MSM's size. MSMs over a
	// precomputed table keep the table's window.
	MSMWindow int
	// AffineMax is the most device scratch, in bytes, an MSM's
	// batch-affine accumulation may take: above it, or above half the
	// device's free memory, the MSM sums its buckets with XYZZ additions
	// instead. 0: DefaultAffineMax. (Accum AccumXYZZ takes none.)
	AffineMax uint64
	// AffineLevels stops the batch-affine accumulation after that many
	// levels and sums what is left with XYZZ additions; 0: every level.
	AffineLevels int
	// Accum is how every MSM sums its buckets.
	Accum Accum
	// SumThreads is the batch additions' thread count; 0: one wave of
	// the device, at least 8 points a thread.
	SumThreads int
	// Profile prints each MSM's phases (CUDA event times) on stderr.
	Profile bool
}

// Accum is how an MSM sums the points of its buckets.
type Accum int

const (
	// AccumDefault takes the batch-affine accumulation for G2 MSMs (under
	// AffineMax) and XYZZ additions for G1: what was fastest on the H200
	// (docs/design/msm.md).
	AccumDefault Accum = iota
	// AccumAffine takes the batch-affine accumulation for every MSM
	// whose scratch is under AffineMax.
	AccumAffine
	// AccumXYZZ takes XYZZ additions for every MSM.
	AccumXYZZ
)

// DefaultAffineMax is the kernels' BA_MAX_BYTES
// (cuda/csrc/msm_affine.cuh): the most scratch a batch-affine
// accumulation takes unless Options.AffineMax says otherwise. It covers
// a G2 MSM of up to about 1.2 million points.
const DefaultAffineMax = 4 << 30

// Window bounds of the kernels (pl_msm_g1, pl_msm_g2).
const (
	MinWindow = 4
	MaxWindow = 24
)

// Validate reports the first field out of its range, naming it.
func (o Options) Validate() error {
	switch {
	case o.MSMWindow != 0 && (o.MSMWindow < MinWindow || o.MSMWindow > MaxWindow):
		return fmt.Errorf("msm window %d: want 0 (by size) or %d to %d", o.MSMWindow, MinWindow, MaxWindow)
	case o.AffineLevels < 0:
		return fmt.Errorf("affine levels %d: want 0 (all) or more", o.AffineLevels)
	case o.Accum < AccumDefault || o.Accum > AccumXYZZ:
		return fmt.Errorf("accumulation %d: want AccumDefault, AccumAffine or AccumXYZZ", o.Accum)
	case o.SumThreads < 0:
		return fmt.Errorf("sum threads %d: want 0 (the device's wave) or more", o.SumThreads)
	}
	return nil
}

// Window is the window of an MSM of n points over plain bases:
// MSMWindow when set, else Window(n).
func (o Options) Window(n int) int {
	if o.MSMWindow != 0 {
		return o.MSMWindow
	}
	return Window(n)
}

// affineCap is the most scratch a batch-affine accumulation takes.
func (o Options) affineCap() uint64 {
	if o.AffineMax != 0 {
		return o.AffineMax
	}
	return DefaultAffineMax
}

// takesAffine reports whether an MSM over G2 (g2) or G1 tries the
// batch-affine accumulation: the kernels' accumulate_by_affine.
func (o Options) takesAffine(g2 bool) bool {
	switch o.Accum {
	case AccumAffine:
		return true
	case AccumXYZZ:
		return false
	}
	return g2
}
