package keys

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/prooflane/prooflane/device"
)

// Device memory of a Groth16 run, per constraint of a circuit of about
// one wire per constraint (chain, mimc), from the H200 runs in
// docs/scale.md (nvidia-smi's peak while proving chain at 2^24, 4
// partitions, 2 resident: 29.5 GiB). What the backend holds besides
// (its context, its kernels' scratch beyond the MSMs at window 16 these
// figures were measured with) comes from its device.MemoryModel.
const (
	// BasesPerConstraint is the proving key's points resident on a device:
	// A, B, Z and K in G1 (two coordinates of the base field, affine) and
	// B in G2 (four).
	BasesPerConstraint = 4*g1PointBytes + g2PointBytes
	g1PointBytes       = 2 * fp.Bytes
	g2PointBytes       = 4 * fp.Bytes
	// devicePartitionPerC is one resident partition: its a, b, c and H
	// vectors and the MSMs' digits, sort buffers and buckets, with what
	// the stream-ordered pools keep between them.
	devicePartitionPerC = 640
	// calibratedWindow is the window of the MSMs devicePartitionPerC was
	// measured with.
	calibratedWindow = 16
)

// DevicePlan is what a run keeps on one device.
type DevicePlan struct {
	// Resident is the partitions resident at once.
	Resident int
	// G2OnDevice says b_g2_msm runs on the device (g2_on: device), with
	// the key's G2 bases there.
	G2OnDevice bool
	// BasesOnHost keeps the key's bases in host memory (bases: host):
	// each MSM over them holds a chunk of points instead.
	BasesOnHost bool
	// G1Streams and G2Streams are the G1 and G2 MSMs that can run over
	// host bases at once (gpu_compute's and b_g2_msm's workers).
	G1Streams, G2Streams int
}

// DeviceEstimate is the device memory a run needs, by part.
type DeviceEstimate struct {
	// Bases is the proving key's points, resident once per device, or
	// with the bases on the host the chunks that MSMs over them hold at
	// once.
	Bases uint64
	// OnHost says Bases is chunks of host bases.
	OnHost bool
	// Partitions is the vectors and MSM buffers of the partitions resident
	// at once.
	Partitions uint64
	// Resident is how many partitions that is.
	Resident int
	// Base is the backend's context (MemoryModel.Context).
	Base uint64
	// G2Scratch is the batch-affine scratch of the G2 MSMs that run at
	// once (MemoryModel.AffineScratch), when the backend takes it.
	G2Scratch uint64
	// WideWindows is what the MSMs with a window wider than 16 take
	// beyond the c = 16 MSMs the partitions' bytes were measured with
	// (device.WiderWindowScratch; on CUDA, 20 from 2^23 points): the G1
	// MSMs of each resident partition and each G2 MSM that can run at
	// once without its batch-affine scratch.
	WideWindows uint64
}

// Total is the estimate's sum.
func (e DeviceEstimate) Total() uint64 {
	return e.Base + e.Bases + e.Partitions + e.G2Scratch + e.WideWindows
}

// EstimateDevice estimates the device memory of proving a circuit of size
// constraints as p says, on a backend of memory model m.
func EstimateDevice(m device.MemoryModel, size int, p DevicePlan) DeviceEstimate {
	n := uint64(max(size, 0))
	r := max(p.Resident, 0)
	e := DeviceEstimate{
		Partitions: n * devicePartitionPerC * uint64(r),
		Resident:   r,
		Base:       m.Context(),
		OnHost:     p.BasesOnHost,
	}
	g2 := uint64(0)
	if p.G2OnDevice {
		g2 = 1
	}
	pts := n // the points a G2 MSM takes at once
	if p.BasesOnHost {
		chunk := min(n, uint64(m.HostChunk()))
		e.Bases = chunk * (g1PointBytes*uint64(max(p.G1Streams, 1)) + g2PointBytes*g2*uint64(max(p.G2Streams, 1)))
		pts = chunk
	} else {
		e.Bases = n * (4*g1PointBytes + g2PointBytes*g2)
	}
	g2Streams := uint64(max(p.G2Streams, 1))
	e.G2Scratch = g2 * m.AffineScratch(device.G2, int(pts)) * g2Streams
	e.WideWindows = uint64(r) * device.WiderWindowScratch(m, device.G1, int(pts), calibratedWindow)
	if e.G2Scratch == 0 {
		e.WideWindows += g2 * g2Streams * device.WiderWindowScratch(m, device.G2, int(pts), calibratedWindow)
	}
	return e
}
