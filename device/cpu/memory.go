package cpu

import (
	"github.com/prooflane/prooflane/device"
	cpubls12381 "github.com/prooflane/prooflane/device/cpu/bls12381"
)

// Factory is the CPU backend's entry in a device.Registry: New with the
// devices a run wants, emulated; it takes no options (the zero struct).
func Factory() device.Factory {
	return device.NewFactory("cpu",
		func(devices int, _ struct{}) (device.Backend, error) { return New(devices) },
		func(struct{}) device.MemoryModel { return Model{} })
}

// Model is the CPU backend's memory model: its emulated devices are host
// memory, holding the bases and vectors the stages allocate through the
// contract and nothing else of the backend's. It has no context, no
// precomputed tables, and its MSMs (gnark-crypto's) keep their buckets
// in host memory, which the host estimate counts; over host bases a
// stream holds HostChunk points at a time, as a device would.
type Model struct{}

var _ device.MemoryModel = Model{}

// OwnMemory is false: the devices are host memory.
func (Model) OwnMemory() bool { return false }

// Context is 0: nothing is held before the work.
func (Model) Context() uint64 { return 0 }

// MSMWindow is 0: gnark-crypto chooses its window on the host.
func (Model) MSMWindow(int) int { return 0 }

// TableWindow is 0: the backend has no tables (device.Tables).
func (Model) TableWindow(int) int { return 0 }

// MSMScratch is 0: the buckets are host memory.
func (Model) MSMScratch(device.Group, int, int, bool) uint64 { return 0 }

// AffineScratch is 0: there is no batch-affine accumulation.
func (Model) AffineScratch(device.Group, int) uint64 { return 0 }

// HostChunk is the points of one chunk of host bases' MSMs.
func (Model) HostChunk() int { return cpubls12381.HostChunk }

// Memory is Model.
func (b *cpuBackend) Memory() device.MemoryModel { return Model{} }
