package device

// Group is a curve group whose points an MSM sums.
type Group int

const (
	// G1 is the curve's group over Fp.
	G1 Group = 1
	// G2 is the group over Fp2.
	G2 Group = 2
)

// MemoryModel is what a backend's devices hold beyond the bases and
// vectors a family allocates through the contract: the figures a family's
// device memory estimate adds to its own (family.DeviceMemoryEstimator),
// so that no family reaches past the contract into a backend's kernels.
// Backend.Memory returns the model of a backend as it was opened (its
// options included), Registry.Model that of a backend not opened yet.
//
// Every figure is an upper bound in bytes of what the backend allocates
// on one device, 0 where it allocates nothing there: the CPU backend's
// emulated devices are host memory, whose context and MSM scratch the
// host estimate counts.
type MemoryModel interface {
	// OwnMemory reports whether the devices have memory of their own (a
	// GPU's), so that a job's device work is not held in host memory;
	// false for devices emulated on the host.
	OwnMemory() bool
	// Context is what a device holds before any work: the runtime's
	// context, the kernels, the memory pools' floor.
	Context() uint64
	// MSMWindow is the window of an MSM of n points over plain bases; 0
	// when the backend's MSMs take no device scratch by window.
	MSMWindow(n int) int
	// TableWindow is the window of the precomputed table of n bases
	// (Tables); 0 when the backend has no tables.
	TableWindow(n int) int
	// MSMScratch is the device scratch an MSM of n points of g takes with
	// window c, over a precomputed table or not, summing its buckets with
	// XYZZ additions.
	MSMScratch(g Group, n, c int, table bool) uint64
	// AffineScratch is the scratch an MSM of n points of g takes for a
	// batch-affine accumulation of its buckets, when the device sums them
	// that way (under its cap); 0 when it does not.
	AffineScratch(g Group, n int) uint64
	// HostChunk is the points an MSM over bases kept in host memory
	// (HostBases) holds on the device at a time.
	HostChunk() int
}

// WiderWindowScratch is what a plain MSM of n points of g at
// m.MSMWindow(n) takes on the device beyond one at window base (0 when it
// takes no more): what a family's estimate adds when its per-point
// figures were measured with MSMs at window base.
func WiderWindowScratch(m MemoryModel, g Group, n, base int) uint64 {
	c := m.MSMWindow(n)
	if c <= base {
		return 0
	}
	wide, at := m.MSMScratch(g, n, c, false), m.MSMScratch(g, n, base, false)
	if wide <= at {
		return 0
	}
	return wide - at
}
