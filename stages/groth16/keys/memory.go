package keys

import (
	"os"
	"strconv"

	"github.com/prooflane/prooflane/cuda"
)

// Device memory of a Groth16 run with the CUDA backend, per constraint of
// a circuit of about one wire per constraint (chain, mimc), from the H200
// runs in docs/scale.md (nvidia-smi's peak while proving chain at 2^24, 4
// partitions, 2 resident: 29.5 GiB).
const (
	// BasesPerConstraint is the proving key's points resident on a device:
	// A, B, Z and K in G1 (96 bytes each, affine) and B in G2 (192 bytes).
	BasesPerConstraint = 4*g1PointBytes + g2PointBytes
	g1PointBytes       = 96
	g2PointBytes       = 192
	// devicePartitionPerC is one resident partition: its a, b, c and H
	// vectors and the MSMs' digits, sort buffers and buckets, with what
	// the stream-ordered pools keep between them.
	devicePartitionPerC = 640
	// deviceBase is the CUDA context, the kernels and the pools' floor.
	deviceBase = 768 << 20
	// setupChunkBytes is the fixed-base kernels' peak during a setup: a
	// chunk of 2^22 G2 scalars at 704 bytes each (package cuda).
	setupChunkBytes = (1 << 22) * 704
)

// HostChunkPoints is the points an MSM over bases kept in host memory
// copies to the device at a time (package cuda's HostChunk).
const HostChunkPoints = 1 << 22

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
	// Base is the context and pools.
	Base uint64
	// G2Scratch is the batch-affine scratch of the G2 MSMs that run at
	// once, when an MSM's fits under its cap (G2AffineScratch).
	G2Scratch uint64
	// WideWindows is what the MSMs with a window wider than 16 take
	// beyond the c = 16 MSMs the partitions' bytes were measured with
	// (cuda.Window: 20 from 2^23 points; cuda.MSMScratch): the G1 MSMs of
	// each resident partition and each G2 MSM that can run at once
	// without its batch-affine scratch.
	WideWindows uint64
}

// Total is the estimate's sum.
func (e DeviceEstimate) Total() uint64 {
	return e.Base + e.Bases + e.Partitions + e.G2Scratch + e.WideWindows
}

// G2AffineMaxEnv overrides the most scratch a G2 MSM's batch-affine
// accumulation may take (bytes; package cuda's kernels read it too).
const G2AffineMaxEnv = "PROOFLANE_CUDA_AFFINE_MAX"

// g2AffineMax is the kernels' BA_MAX_BYTES (cuda/csrc/msm_affine.cuh).
const g2AffineMax = 4 << 30

// G2AffineScratch is the scratch a G2 MSM of m points takes on the
// device for its batch-affine accumulation: cuda/csrc/msm_affine.cuh's
// ba_scratch_bytes with the windows the kernels take (cuda.Window for
// plain bases, cuda.TableWindow over a table), the larger of the two
// that is under the cap; 0 when neither is, as the kernels then take the
// XYZZ accumulation and no more than the partition estimate.
func G2AffineScratch(m uint64) uint64 {
	limit := uint64(g2AffineMax)
	if v, err := strconv.ParseUint(os.Getenv(G2AffineMaxEnv), 10, 64); err == nil {
		limit = v
	}
	most := uint64(0)
	for _, w := range []struct {
		c     int
		table bool
	}{{cuda.Window(int(m)), false}, {cuda.TableWindow(int(m)), true}} {
		if need := g2AffineNeed(m, w.c, w.table); need <= limit {
			most = max(most, need)
		}
	}
	return most
}

// g2AffineNeed is ba_scratch_bytes for m points and window c.
func g2AffineNeed(m uint64, c int, table bool) uint64 {
	const fp2 = 96
	windows := uint64((256 + c - 1) / c)
	nb := uint64(1) << (c - 1)
	if !table {
		nb *= windows
	}
	total := m * windows
	slots := total/2 + nb + 1
	threads := (slots + 8) / 8
	return 5*nb*4 + (slots+total/4+nb+1)*g2PointBytes + slots*(fp2+4) + 2*(threads+threads/7+16)*fp2
}

// EstimateDevice estimates the device memory of proving a circuit of size
// constraints as p says.
func EstimateDevice(size int, p DevicePlan) DeviceEstimate {
	n := uint64(max(size, 0))
	r := max(p.Resident, 0)
	e := DeviceEstimate{
		Partitions: n * devicePartitionPerC * uint64(r),
		Resident:   r,
		Base:       deviceBase,
		OnHost:     p.BasesOnHost,
	}
	g2 := uint64(0)
	if p.G2OnDevice {
		g2 = 1
	}
	m := n // the points a G2 MSM takes at once
	if p.BasesOnHost {
		chunk := min(n, HostChunkPoints)
		e.Bases = chunk * (g1PointBytes*uint64(max(p.G1Streams, 1)) + g2PointBytes*g2*uint64(max(p.G2Streams, 1)))
		m = chunk
	} else {
		e.Bases = n * (4*g1PointBytes + g2PointBytes*g2)
	}
	g2Streams := uint64(max(p.G2Streams, 1))
	e.G2Scratch = g2 * G2AffineScratch(m) * g2Streams
	e.WideWindows = uint64(r) * cuda.WiderWindowScratch(int(m), cuda.G1XYZZBytes)
	if e.G2Scratch == 0 {
		e.WideWindows += g2 * g2Streams * cuda.WiderWindowScratch(int(m), cuda.G2XYZZBytes)
	}
	return e
}

// EstimateSetupDevice is the device memory of a setup on the device: the
// fixed-base kernels work a chunk at a time, whatever the size.
func EstimateSetupDevice() uint64 { return deviceBase + setupChunkBytes }
