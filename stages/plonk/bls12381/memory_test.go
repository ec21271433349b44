package plonk

import (
	"strings"
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// gpu is the CUDA backend's memory model with the kernels' defaults,
// whose figures the H200 measurements pin.
var gpu = devcuda.Model(devcuda.Options{})

// The domain the memory checks assume for a shipped circuit is never
// smaller than the one its compiled system has, nor more than twice it.
func TestDomainBoundCoversTheShippedCircuits(t *testing.T) {
	for _, name := range workloads.Names() {
		c, err := workloads.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{max(c.MinSize, 1<<10), 1 << 13, 1<<14 + 777} {
			spr, _, err := Compile(name, size)
			if err != nil {
				t.Fatal(err)
			}
			got, bound := domainSize(spr), domainBound(name, size)
			if bound < got || bound > 2*got {
				t.Errorf("%s size %d: domain %d (%d constraints, %d public), the memory checks assume %d", name, size, got, spr.GetNbConstraints(), len(spr.Public), bound)
			}
		}
	}
	if got := domainBound("someone-elses", 1000); got != 4096 {
		t.Errorf("a circuit of no table: domain %d, want 4096 (4 constraints a unit of size)", got)
	}
}

// The device estimate covers the H200 runs of docs/plonk.md (chain at
// size 2^19, a domain of 2^20, 10 partitions on the device: nvidia-smi's
// peak 2.4 GiB with plonk.yaml's parameters, 4.0 GiB with
// device_streams=2) by less than 15%.
func TestDeviceEstimateOfTheH200RunFitsItsMeasurement(t *testing.T) {
	const gib = 1 << 30
	req := family.KeyRequest{System: family.System{Name: "chain", Size: 1 << 19}}
	for _, c := range []struct {
		params   map[string]string
		measured float64
		lower    string
	}{
		{map[string]string{"resident": "2", "device_streams": "1"}, 2.4 * gib, "a smaller --size"},
		{map[string]string{"resident": "2", "device_streams": "2"}, 4.0 * gib, "--set device_streams=1"},
	} {
		est, parts, lower := Family{}.DeviceMemory(gpu, req, c.params, 10)
		if float64(est) < c.measured || float64(est) > 1.15*c.measured {
			t.Errorf("%v: estimate %.2f GiB (%s), measured %.1f GiB", c.params, float64(est)/gib, parts, c.measured/gib)
		}
		if !strings.Contains(parts, "the kzg srs of a domain of 1048576 192 MiB") || !strings.Contains(lower, c.lower) {
			t.Errorf("%v: parts %q, lower %q, want the srs of 2^20 and %q", c.params, parts, lower, c.lower)
		}
	}
	if _, _, lower := (Family{}).DeviceMemory(gpu, req, map[string]string{"resident": "3", "device_streams": "4"}, 10); !strings.Contains(lower, "(resident is 3: --set resident=2)") {
		t.Errorf("resident below device_streams: lower %q, want resident named", lower)
	}
	// Without the parameters (plonk-single-lock), every partition placed
	// on the device counts.
	if est, parts, _ := (Family{}).DeviceMemory(gpu, req, nil, 3); !strings.Contains(parts, "3 device step(s) at once") || est != EstimateDevice(gpu, 1<<20, 3).Total() {
		t.Errorf("no parameters, 3 partitions on the device: %d bytes, %s", est, parts)
	}
}

// The host estimate is above every peak RSS of docs/memory.md's PLONK
// table (chain, CPU backend; domain n), a prove's by less than 1.5x from
// 2^16 up.
func TestHostEstimateCoversTheMeasuredPeaks(t *testing.T) {
	const kib = 1 << 10
	for _, c := range []struct {
		n        uint64
		inFlight int
		setup    bool
		measured uint64
	}{
		{1 << 14, 0, true, 56392 * kib},
		{1 << 16, 0, true, 141260 * kib},
		{1 << 14, 1, false, 104252 * kib},
		{1 << 14, 4, false, 158404 * kib},
		{1 << 16, 1, false, 372140 * kib},
		{1 << 16, 4, false, 537504 * kib},
	} {
		est := hostEstimate(c.n, c.inFlight, c.setup)
		if est < c.measured || (c.n >= 1<<16 && !c.setup && float64(est) > 1.5*float64(c.measured)) {
			t.Errorf("n %d, %d in flight, setup %v: estimate %d KiB, measured %d KiB", c.n, c.inFlight, c.setup, est/kib, c.measured/kib)
		}
	}
	if est, setup := (Family{}).HostMemory(family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "chain", Size: 1 << 17}}, nil, 4); est != 0 || setup {
		t.Errorf("below a size of 2^18: %d bytes, setup %v; want no estimate", est, setup)
	}
	est, setup := Family{}.HostMemory(family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "chain", Size: 1 << 18}}, nil, 2)
	if want := hostEstimate(1<<19, 2, true); !setup || est != want {
		t.Errorf("chain at 2^18, no key cached: %d bytes, setup %v; want %d with the setup", est, setup, want)
	}
}

// From 2^23 rows a device step's MSMs take c = 20 on CUDA, and the
// estimate adds what that takes beyond the c = 16 it was calibrated with;
// below, not.
func TestDeviceEstimateCountsTheWiderWindows(t *testing.T) {
	if e := EstimateDevice(gpu, 1<<20, 2); e.Steps != 2*(1<<20)*deviceStepPerN {
		t.Errorf("2^20: steps %d, want 2 × n × %d", e.Steps, deviceStepPerN)
	}
	const n = 1 << 24
	extra := gpu.MSMScratch(device.G1, n, gpu.MSMWindow(n), false) - gpu.MSMScratch(device.G1, n, 16, false)
	if e := EstimateDevice(gpu, n, 2); extra == 0 || e.Steps != 2*(n*deviceStepPerN+extra) {
		t.Errorf("2^24: steps %d, want 2 × (n × %d + %d)", e.Steps, deviceStepPerN, extra)
	}
	// A window forced to 16 takes no more than the calibration's.
	if e := EstimateDevice(devcuda.Model(devcuda.Options{MSMWindow: 16}), n, 2); e.Steps != 2*n*deviceStepPerN {
		t.Errorf("2^24 at c = 16: steps %d, want 2 × n × %d", e.Steps, deviceStepPerN)
	}
}

// On the CPU backend's model the estimate is the SRS and the steps'
// vectors: no context, no kernel scratch, and no context in its parts.
func TestDeviceEstimateOnTheCPUModelHasNoContext(t *testing.T) {
	e := EstimateDevice(cpu.Model{}, 1<<24, 2)
	if e.Context != 0 || e.Steps != 2*(1<<24)*deviceStepPerN {
		t.Errorf("cpu model at 2^24: context %d, steps %d; want 0 and 2 × n × %d", e.Context, e.Steps, deviceStepPerN)
	}
	est, parts, _ := Family{}.DeviceMemory(cpu.Model{}, family.KeyRequest{System: family.System{Name: "chain", Size: 1 << 19}}, nil, 2)
	if est != EstimateDevice(cpu.Model{}, 1<<20, 2).Total() || strings.Contains(parts, "context") {
		t.Errorf("cpu model: %d bytes (%s)", est, parts)
	}
}
