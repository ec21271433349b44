package keys

import (
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/internal/units"
)

// gpu is the CUDA backend's memory model with the kernels' defaults,
// whose figures the H200 measurements pin.
var gpu = devcuda.Model(devcuda.Options{})

func TestDeviceEstimateOfTheH200RunFitsItsMeasurement(t *testing.T) {
	// chain 2^24, 2 resident partitions: nvidia-smi's peak was 30207 MiB
	// (docs/scale.md); the estimate is an upper bound within 10%.
	e := EstimateDevice(gpu, 1<<24, DevicePlan{Resident: 2, G2OnDevice: true})
	// that run's MSMs took c = 16 (before the kernels' 20 from 2^23)
	e.WideWindows = 0
	measured := uint64(30207) << 20
	if e.Total() < measured || e.Total() > measured*11/10 {
		t.Errorf("estimate %s for a measured %s", units.Bytes(e.Total()), units.Bytes(measured))
	}
	// The same prove with c = 20 from 2^23 (tables off, the plan prove
	// made: two b_g2_msm workers): nvidia-smi's peak
	// 38063 MiB. The estimate counts both workers' G2 MSMs at their
	// wider window's scratch at once, whose peaks did not meet in that
	// run: an upper bound within 20%.
	e = EstimateDevice(gpu, 1<<24, DevicePlan{Resident: 2, G2OnDevice: true, G2Streams: 2})
	measured = uint64(38063) << 20
	if e.WideWindows == 0 || e.Total() < measured || e.Total() > measured*12/10 {
		t.Errorf("estimate %s (wider windows %s) for a measured %s", units.Bytes(e.Total()), units.Bytes(e.WideWindows), units.Bytes(measured))
	}
}

// The wider windows' extra is what MSMScratch says they take beyond c =
// 16: nothing up to 2^22, both curves' at 2^24, and nothing for G2 when
// its batch-affine scratch is counted instead.
func TestWideWindowsCountTheirExtraScratch(t *testing.T) {
	if e := EstimateDevice(gpu, 1<<22, DevicePlan{Resident: 2, G2OnDevice: true}); e.WideWindows != 0 {
		t.Errorf("2^22: wider windows %d, want 0 (c = 16)", e.WideWindows)
	}
	const n = 1 << 24
	g1 := gpu.MSMScratch(device.G1, n, gpu.MSMWindow(n), false) - gpu.MSMScratch(device.G1, n, 16, false)
	g2 := gpu.MSMScratch(device.G2, n, gpu.MSMWindow(n), false) - gpu.MSMScratch(device.G2, n, 16, false)
	if e := EstimateDevice(gpu, n, DevicePlan{Resident: 3, G2OnDevice: true, G2Streams: 2}); e.WideWindows != 3*g1+2*g2 {
		t.Errorf("2^24: wider windows %d, want 3 G1 MSMs' %d and 2 G2 MSMs' %d", e.WideWindows, g1, g2)
	}
	if e := EstimateDevice(gpu, n, DevicePlan{Resident: 1}); e.WideWindows != g1 {
		t.Errorf("2^24, g2_on: cpu: wider windows %d, want one G1 MSM's %d", e.WideWindows, g1)
	}
	// A window forced to 16 (the backend's options) takes no more.
	at16 := devcuda.Model(devcuda.Options{MSMWindow: 16})
	if e := EstimateDevice(at16, n, DevicePlan{Resident: 3, G2OnDevice: true, G2Streams: 2}); e.WideWindows != 0 {
		t.Errorf("2^24 at c = 16: wider windows %d, want 0", e.WideWindows)
	}
}

// Bases kept on the host cost the chunks their MSMs hold at once instead
// of the key's points: the same at a chunk's size with every stream
// busy, far less above it; G2 counts only when b_g2_msm runs on the
// device.
func TestHostBasesCostTheirChunksNotTheKey(t *testing.T) {
	const n = 1 << 26
	resident := EstimateDevice(gpu, n, DevicePlan{Resident: 1, G2OnDevice: true})
	if want := uint64(n) * BasesPerConstraint; resident.Bases != want {
		t.Errorf("resident bases %d, want %d", resident.Bases, want)
	}
	host := EstimateDevice(gpu, n, DevicePlan{Resident: 1, G2OnDevice: true, BasesOnHost: true, G1Streams: 1, G2Streams: 2})
	if want := uint64(gpu.HostChunk()) * (96 + 2*192); host.Bases != want || !host.OnHost {
		t.Errorf("host bases %d (on host %v), want %d", host.Bases, host.OnHost, want)
	}
	if host.Partitions != resident.Partitions || host.Base != resident.Base {
		t.Error("keeping the bases on the host changed the partitions' or the context's estimate")
	}
	g1Only := EstimateDevice(gpu, 1<<12, DevicePlan{Resident: 1})
	if want := uint64(4*96) << 12; g1Only.Bases != want {
		t.Errorf("g2_on: cpu: bases %d, want the G1 vectors' %d", g1Only.Bases, want)
	}
}

// The G2 MSMs' batch-affine scratch counts for every G2 MSM at once while
// an MSM's fits under the cap (2^20 points: about 3.6 GiB, under 4 GiB),
// not above it, where the kernels take the XYZZ accumulation, and not
// with g2_on: cpu; the backend's options move the line.
func TestG2AffineScratchCountsUnderItsCap(t *testing.T) {
	small := EstimateDevice(gpu, 1<<20, DevicePlan{Resident: 1, G2OnDevice: true, G2Streams: 2})
	if one := gpu.AffineScratch(device.G2, 1<<20); one < 3<<30 || one > 4<<30 || small.G2Scratch != 2*one {
		t.Errorf("2^20: one MSM's scratch %s, the estimate's %s", units.Bytes(one), units.Bytes(small.G2Scratch))
	}
	if small.Total() != small.Base+small.Bases+small.Partitions+small.G2Scratch {
		t.Error("the total leaves the G2 scratch out")
	}
	if big := EstimateDevice(gpu, 1<<22, DevicePlan{Resident: 1, G2OnDevice: true, G2Streams: 2}); big.G2Scratch != 0 {
		t.Errorf("2^22: G2 scratch %s over the cap", units.Bytes(big.G2Scratch))
	}
	if cpuG2 := EstimateDevice(gpu, 1<<20, DevicePlan{Resident: 1, G2Streams: 2}); cpuG2.G2Scratch != 0 {
		t.Errorf("g2_on: cpu: G2 scratch %s", units.Bytes(cpuG2.G2Scratch))
	}
	for _, o := range []devcuda.Options{{AffineMax: 1000}, {Accum: devcuda.AccumXYZZ}} {
		if e := EstimateDevice(devcuda.Model(o), 1<<20, DevicePlan{Resident: 1, G2OnDevice: true, G2Streams: 2}); e.G2Scratch != 0 || e.WideWindows != 0 {
			t.Errorf("%+v: G2 scratch %d, wider windows %d; want neither", o, e.G2Scratch, e.WideWindows)
		}
	}
}

// On the CPU backend's model a run holds the key's bases and its
// partitions' vectors alone: no context, no kernel scratch, and host
// bases in the CPU backend's chunks.
func TestTheCPUModelCountsTheStagesAllocationsAlone(t *testing.T) {
	const n = 1 << 24
	e := EstimateDevice(cpu.Model{}, n, DevicePlan{Resident: 2, G2OnDevice: true, G2Streams: 2})
	if e.Base != 0 || e.G2Scratch != 0 || e.WideWindows != 0 || e.Total() != n*BasesPerConstraint+2*n*devicePartitionPerC {
		t.Errorf("cpu model at 2^24: %+v", e)
	}
	host := EstimateDevice(cpu.Model{}, n, DevicePlan{Resident: 1, BasesOnHost: true, G1Streams: 2})
	if want := uint64(cpu.Model{}.HostChunk()) * 96 * 2; host.Bases != want {
		t.Errorf("cpu model, host bases: %d, want %d", host.Bases, want)
	}
}
