package pipelines_test

import (
	"fmt"
	"testing"

	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
)

// The shipped layouts leave their host-side counts to auto: on one device
// of a host with 8 cores or fewer they are the counts the layouts were
// tuned with (2 workers, a cpu_bandwidth of 4); they grow with the devices
// and with the cores (one worker per 4, a unit per 2) up to what the
// cores allow. The device-bound stages keep their own counts.
func TestShippedLayoutsSizeHostCountsForDevicesAndCores(t *testing.T) {
	layouts := map[string][]string{ // the host stages sized by auto
		"groth16":             {"synthesize", "prep_msm"},
		"groth16-dual-worker": {"synthesize", "prep_msm"},
		"groth16-single-lock": {"synthesize", "prep_msm"},
		"groth16-two-lock":    {"synthesize", "prep_msm"},
		"plonk":               {"solve", "ratio", "linearize", "fold"},
		"plonk-single-lock":   {"solve"},
	}
	for _, c := range []struct {
		devices, cores int
		workers        int
		capacity       int64
	}{
		{1, 2, 2, 4},
		{1, 8, 2, 4},
		{2, 16, 4, 8},
		{1, 16, 4, 8}, // the cores: one worker per 4, a unit per 2
		{2, 32, 8, 16},
		{8, 8, 8, 16}, // capped: max(2, cores) workers, max(4, 2 cores) capacity
	} {
		for name, hosts := range layouts {
			t.Run(fmt.Sprintf("%s/%d devices/%d cores", name, c.devices, c.cores), func(t *testing.T) {
				one := load(t, name, runtime.LoadOptions{Devices: 1, Cores: c.cores})
				p := load(t, name, runtime.LoadOptions{Devices: c.devices, Cores: c.cores})
				for _, h := range hosts {
					s := stage(t, p, h)
					if s.DeviceBound || !s.WorkersAuto || s.Workers != c.workers {
						t.Errorf("stage %q: workers %d (auto %v, device-bound %v), want %d from auto on the host", h, s.Workers, s.WorkersAuto, s.DeviceBound, c.workers)
					}
				}
				for i, s := range p.Stages {
					if !s.WorkersAuto && s.Workers != one.Stages[i].Workers {
						t.Errorf("stage %q: workers %d on %d devices, %d on one: only auto counts may change", s.Name, s.Workers, c.devices, one.Stages[i].Workers)
					}
				}
				if got := capacity(t, p, "cpu_bandwidth"); got != c.capacity {
					t.Errorf("cpu_bandwidth: capacity %d, want %d", got, c.capacity)
				}
			})
		}
	}
}

func load(t *testing.T, name string, opts runtime.LoadOptions) *runtime.Pipeline {
	t.Helper()
	file, src, err := pipelines.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.ParseWith(file, src, builtin.Registry(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func stage(t *testing.T, p *runtime.Pipeline, name string) *runtime.Stage {
	t.Helper()
	for _, s := range p.Stages {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("pipeline %q has no stage %q", p.Name, name)
	return nil
}

func capacity(t *testing.T, p *runtime.Pipeline, name string) int64 {
	t.Helper()
	for _, r := range p.Resources {
		if r.Name == name {
			return r.Capacity
		}
	}
	t.Fatalf("pipeline %q has no resource %q", p.Name, name)
	return 0
}
