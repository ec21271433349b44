package cuda

import (
	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
)

// Options say how the backend's kernels run (package cuda's Options: a
// forced MSM window, the batch-affine accumulation's cap, the
// measurements' settings); the zero value is the kernels' defaults.
type Options = cu.Options

// The ways an MSM sums its buckets (Options.Accum; package cuda's).
const (
	AccumDefault = cu.AccumDefault
	AccumAffine  = cu.AccumAffine
	AccumXYZZ    = cu.AccumXYZZ
)

// Model is the memory model of the CUDA backend opened with opts, in
// every build (the figures are package cuda's plain Go): what the
// kernels hold on a device beside the stages' bases and vectors.
func Model(opts Options) device.MemoryModel { return model{opts} }

type model struct{ o Options }

var _ device.MemoryModel = model{}

// OwnMemory is true: a GPU's memory is its own.
func (model) OwnMemory() bool { return true }

// Context is cuda.ContextBytes.
func (model) Context() uint64 { return cu.ContextBytes }

// MSMWindow is the options' window (cuda.Options.Window).
func (m model) MSMWindow(n int) int { return m.o.Window(n) }

// TableWindow is cuda.TableWindow.
func (model) TableWindow(n int) int { return cu.TableWindow(n) }

// MSMScratch is cuda.MSMScratch with the group's XYZZ points.
func (model) MSMScratch(g device.Group, n, c int, table bool) uint64 {
	return cu.MSMScratch(n, c, table, xyzzBytes(g))
}

// AffineScratch is cuda.Options.AffineScratch.
func (m model) AffineScratch(g device.Group, n int) uint64 {
	return m.o.AffineScratch(n, g == device.G2)
}

// HostChunk is cuda.HostChunk.
func (model) HostChunk() int { return cu.HostChunk }

func xyzzBytes(g device.Group) int {
	if g == device.G2 {
		return cu.G2XYZZBytes
	}
	return cu.G1XYZZBytes
}
