package keys

import (
	"testing"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/units"
)

func TestDeviceEstimateOfTheH200RunFitsItsMeasurement(t *testing.T) {
	// chain 2^24, 2 resident partitions: nvidia-smi's peak was 30207 MiB
	// (docs/scale.md); the estimate is an upper bound within 10%.
	e := EstimateDevice(1<<24, DevicePlan{Resident: 2, G2OnDevice: true})
	// that run's MSMs took c = 16 (before cuda.Window's 20 from 2^23)
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
	e = EstimateDevice(1<<24, DevicePlan{Resident: 2, G2OnDevice: true, G2Streams: 2})
	measured = uint64(38063) << 20
	if e.WideWindows == 0 || e.Total() < measured || e.Total() > measured*12/10 {
		t.Errorf("estimate %s (wider windows %s) for a measured %s", units.Bytes(e.Total()), units.Bytes(e.WideWindows), units.Bytes(measured))
	}
}

// The wider windows' extra is what MSMScratch says they take beyond c =
// 16: nothing up to 2^22, both curves' at 2^24, and nothing for G2 when
// its batch-affine scratch is counted instead.
func TestWideWindowsCountTheirExtraScratch(t *testing.T) {
	if e := EstimateDevice(1<<22, DevicePlan{Resident: 2, G2OnDevice: true}); e.WideWindows != 0 {
		t.Errorf("2^22: wider windows %d, want 0 (c = 16)", e.WideWindows)
	}
	const n = 1 << 24
	g1 := cuda.MSMScratch(n, cuda.Window(n), false, cuda.G1XYZZBytes) - cuda.MSMScratch(n, 16, false, cuda.G1XYZZBytes)
	g2 := cuda.MSMScratch(n, cuda.Window(n), false, cuda.G2XYZZBytes) - cuda.MSMScratch(n, 16, false, cuda.G2XYZZBytes)
	if e := EstimateDevice(n, DevicePlan{Resident: 3, G2OnDevice: true, G2Streams: 2}); e.WideWindows != 3*g1+2*g2 {
		t.Errorf("2^24: wider windows %d, want 3 G1 MSMs' %d and 2 G2 MSMs' %d", e.WideWindows, g1, g2)
	}
	if e := EstimateDevice(n, DevicePlan{Resident: 1}); e.WideWindows != g1 {
		t.Errorf("2^24, g2_on: cpu: wider windows %d, want one G1 MSM's %d", e.WideWindows, g1)
	}
}

// Bases kept on the host cost the chunks their MSMs hold at once instead
// of the key's points: the same at a chunk's size with every stream
// busy, far less above it; G2 counts only when b_g2_msm runs on the
// device.
func TestHostBasesCostTheirChunksNotTheKey(t *testing.T) {
	const n = 1 << 26
	resident := EstimateDevice(n, DevicePlan{Resident: 1, G2OnDevice: true})
	if want := uint64(n) * BasesPerConstraint; resident.Bases != want {
		t.Errorf("resident bases %d, want %d", resident.Bases, want)
	}
	host := EstimateDevice(n, DevicePlan{Resident: 1, G2OnDevice: true, BasesOnHost: true, G1Streams: 1, G2Streams: 2})
	if want := uint64(HostChunkPoints) * (96 + 2*192); host.Bases != want || !host.OnHost {
		t.Errorf("host bases %d (on host %v), want %d", host.Bases, host.OnHost, want)
	}
	if host.Partitions != resident.Partitions || host.Base != resident.Base {
		t.Error("keeping the bases on the host changed the partitions' or the context's estimate")
	}
	g1Only := EstimateDevice(1<<12, DevicePlan{Resident: 1})
	if want := uint64(4*96) << 12; g1Only.Bases != want {
		t.Errorf("g2_on: cpu: bases %d, want the G1 vectors' %d", g1Only.Bases, want)
	}
}

// The G2 MSMs' batch-affine scratch counts for every G2 MSM at once while
// an MSM's fits under the cap (2^20 points: about 3.6 GiB, under 4 GiB),
// not above it, where the kernels take the XYZZ accumulation, and not
// with g2_on: cpu; the cap's env moves the line.
func TestG2AffineScratchCountsUnderItsCap(t *testing.T) {
	small := EstimateDevice(1<<20, DevicePlan{Resident: 1, G2OnDevice: true, G2Streams: 2})
	if one := G2AffineScratch(1 << 20); one < 3<<30 || one > 4<<30 || small.G2Scratch != 2*one {
		t.Errorf("2^20: one MSM's scratch %s, the estimate's %s", units.Bytes(one), units.Bytes(small.G2Scratch))
	}
	if small.Total() != small.Base+small.Bases+small.Partitions+small.G2Scratch {
		t.Error("the total leaves the G2 scratch out")
	}
	if big := EstimateDevice(1<<22, DevicePlan{Resident: 1, G2OnDevice: true, G2Streams: 2}); big.G2Scratch != 0 {
		t.Errorf("2^22: G2 scratch %s over the cap", units.Bytes(big.G2Scratch))
	}
	if cpu := EstimateDevice(1<<20, DevicePlan{Resident: 1, G2Streams: 2}); cpu.G2Scratch != 0 {
		t.Errorf("g2_on: cpu: G2 scratch %s", units.Bytes(cpu.G2Scratch))
	}
	t.Setenv(G2AffineMaxEnv, "1000")
	if G2AffineScratch(1<<20) != 0 {
		t.Errorf("%s=1000 left the 2^20 scratch counted", G2AffineMaxEnv)
	}
}

// G2AffineScratch's formula mirrors the kernels' ba_scratch_bytes
// (cuda/csrc/msm_affine.cuh): at 2^20 points, c = 16, both give this
// figure (cuda/internal/hostcheck's TestBAScratchBytesG2 pins the
// kernels' side).
func TestG2AffineScratchMirrorsTheKernels(t *testing.T) {
	if got := g2AffineNeed(1<<20, 16, false); got != 3763492836 {
		t.Errorf("g2AffineNeed(2^20, c=16) = %d, want 3763492836", got)
	}
}
