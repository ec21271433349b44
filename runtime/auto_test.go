package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestAutoCountsGrowWithDevicesAndCoresUpToTheCores(t *testing.T) {
	for _, c := range []struct {
		devices, cores    int
		host, dev         int
		capacity          int64
		hostWhy, capWhy   string
		deviceWhyContains string
	}{
		// Few cores: the single-GPU layouts' own 2 workers and 4 a device.
		{1, 1, 2, 2, 4, "2 per device x 1 device, 1 core", "4 per device x 1 device, 1 core", "2 per device, 1 device"},
		{1, 8, 2, 2, 4, "2 per device x 1 device, 8 cores", "4 per device x 1 device, 8 cores", "2 per device, 1 device"},
		{2, 16, 4, 2, 8, "2 per device x 2 devices, 16 cores", "4 per device x 2 devices, 16 cores", "on each of 2 devices"},
		// More cores: one host worker per 4 cores, a unit of capacity per 2.
		{1, 16, 4, 2, 8, "1 per 4 cores x 16 cores, more than 2 per device x 1 device", "1 per 2 cores x 16 cores, more than 4 per device x 1 device", "2 per device, 1 device"},
		{2, 32, 8, 2, 16, "1 per 4 cores x 32 cores, more than 2 per device x 2 devices", "1 per 2 cores x 32 cores, more than 4 per device x 2 devices", "on each of 2 devices"},
		{64, 1024, 256, 2, 512, "1 per 4 cores x 1024 cores, more than 2 per device x 64 devices", "1 per 2 cores x 1024 cores, more than 4 per device x 64 devices", "on each of 64 devices"},
		// The caps: max(2, cores) workers, max(4, 2*cores) capacity.
		{8, 8, 8, 2, 16, "2 per device x 8 devices, capped at 8 by 8 cores", "4 per device x 8 devices, capped at 16, twice 8 cores", "on each of 8 devices"},
		{4, 1, 2, 2, 4, "2 per device x 4 devices, capped at 2 by 1 core", "4 per device x 4 devices, capped at 4, twice 1 core", "on each of 4 devices"},
	} {
		name := fmt.Sprintf("%d devices %d cores", c.devices, c.cores)
		if got := AutoWorkers(false, c.devices, c.cores); got != c.host {
			t.Errorf("%s: host stage auto = %d, want %d", name, got, c.host)
		}
		if got := AutoWorkers(true, c.devices, c.cores); got != c.dev {
			t.Errorf("%s: device-bound stage auto = %d, want %d", name, got, c.dev)
		}
		if got := AutoCapacity(c.devices, c.cores); got != c.capacity {
			t.Errorf("%s: capacity auto = %d, want %d", name, got, c.capacity)
		}
		if got := autoWorkersWhy(false, c.devices, c.cores); got != c.hostWhy {
			t.Errorf("%s: host why %q, want %q", name, got, c.hostWhy)
		}
		if got := autoCapacityWhy(c.devices, c.cores); got != c.capWhy {
			t.Errorf("%s: capacity why %q, want %q", name, got, c.capWhy)
		}
		if got := autoWorkersWhy(true, c.devices, c.cores); !strings.Contains(got, c.deviceWhyContains) {
			t.Errorf("%s: device-bound why %q, want it to say %q", name, got, c.deviceWhyContains)
		}
	}
}

// autoPipeline has an auto count of every kind: a host stage written
// `auto`, one through a parameter, a device-bound stage, and a host
// resource's capacity. resources comes before devices, so capacity auto
// must not be sized before the file's devices are read.
const autoPipeline = `pipeline: autos
params: {w: auto, fixed: 3}
resources:
  cpu: {capacity: auto}
  gpu.{gpu}.compute: {}
devices: 2
stages:
  host: {type: sim.sleep, workers: auto, locks: [{cpu: 2}]}
  param: {type: sim.sleep, workers: "${w}", needs: [host]}
  set: {type: sim.sleep, workers: "${fixed}", needs: [host]}
  dev:
    type: sim.device
    needs: [param, set]
    workers: auto
    locks: ["gpu.{gpu}.compute"]
`

func TestAutoResolvesStagesResourcesAndParamsForDevicesAndCores(t *testing.T) {
	reg := testRegistry(t)
	for _, c := range []struct {
		name                     string
		opts                     LoadOptions
		devices                  int
		host, set, dev, capacity int64
	}{
		{"the file's devices", LoadOptions{Cores: 16}, 2, 4, 3, 2, 8},
		{"one device", LoadOptions{Devices: 1, Cores: 8}, 1, 2, 3, 2, 4},
		{"more cores than the devices ask for", LoadOptions{Devices: 1, Cores: 32}, 1, 8, 3, 2, 16},
		{"capped by the cores", LoadOptions{Devices: 8, Cores: 8}, 8, 8, 3, 2, 16},
		{"--set auto over a number", LoadOptions{Devices: 2, Cores: 16, Params: map[string]string{"fixed": "auto"}}, 2, 4, 4, 2, 8},
		{"--set a number over auto", LoadOptions{Devices: 2, Cores: 16, Params: map[string]string{"w": "5"}}, 2, 4, 3, 2, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseWith("autos.yaml", []byte(autoPipeline), reg, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if p.Devices != c.devices || p.Cores != c.opts.Cores {
				t.Errorf("devices %d cores %d, want %d and %d", p.Devices, p.Cores, c.devices, c.opts.Cores)
			}
			param := c.host
			if v := c.opts.Params["w"]; v != "" {
				fmt.Sscan(v, &param)
			}
			want := map[string]int64{"host": c.host, "param": param, "set": c.set, "dev": c.dev}
			for _, s := range p.Stages {
				if int64(s.Workers) != want[s.Name] {
					t.Errorf("stage %q: workers %d, want %d", s.Name, s.Workers, want[s.Name])
				}
			}
			if got := p.Resources[0].Capacity; got != c.capacity {
				t.Errorf("cpu: capacity %d, want %d", got, c.capacity)
			}
			// Every auto value is listed, resources first, each with the
			// value the pipeline holds.
			var names []string
			for _, a := range p.Auto {
				switch {
				case a.Stage != nil:
					names = append(names, a.Stage.Name)
					if a.Value != int64(a.Stage.Workers) || !a.Stage.WorkersAuto {
						t.Errorf("%v: stage has workers %d (auto %v)", a, a.Stage.Workers, a.Stage.WorkersAuto)
					}
				default:
					names = append(names, a.Resource)
					if a.Value != p.Resources[0].Capacity {
						t.Errorf("%v: resource has capacity %d", a, p.Resources[0].Capacity)
					}
				}
			}
			wantNames := []string{"cpu", "host", "param", "set", "dev"}
			if c.opts.Params["fixed"] == "" {
				wantNames = []string{"cpu", "host", "param", "dev"}
			}
			if c.opts.Params["w"] != "" {
				wantNames = []string{"cpu", "host", "dev"}
			}
			if strings.Join(names, " ") != strings.Join(wantNames, " ") {
				t.Errorf("auto values %v, want %v", names, wantNames)
			}
		})
	}
}

func TestAutoValueSaysWhereItCameFrom(t *testing.T) {
	p, err := ParseWith("autos.yaml", []byte(autoPipeline), testRegistry(t), LoadOptions{Devices: 2, Cores: 16})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range p.Auto {
		got = append(got, a.String())
	}
	want := []string{
		"cpu: capacity auto = 8 (4 per device x 2 devices, 16 cores)",
		"host: workers auto = 4 (2 per device x 2 devices, 16 cores)",
		"param: workers auto = 4 (2 per device x 2 devices, 16 cores)",
		"dev: workers auto = 2 (2 per device, on each of 2 devices)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("auto values:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadOptionsAboveTheLimitsAreProblems(t *testing.T) {
	_, err := ParseWith("autos.yaml", []byte(autoPipeline), testRegistry(t), LoadOptions{Devices: MaxDevices + 1})
	want := fmt.Sprintf("autos.yaml: devices %d (the caller's, e.g. --devices): above %d, the limit on devices", MaxDevices+1, MaxDevices)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	_, err = ParseWith("autos.yaml", []byte(autoPipeline), testRegistry(t), LoadOptions{Cores: MaxCores + 1})
	want = fmt.Sprintf("autos.yaml: cores %d (the caller's, e.g. --cores): above %d, the limit on cores", MaxCores+1, MaxCores)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// An engine built for more devices than the pipeline was loaded for sizes
// the auto counts for its own: a layout loaded for one GPU and run on two
// gets the two-device counts (the CLI's --devices reaches the engine).
func TestEngineSizesAutoCountsForItsOwnDevices(t *testing.T) {
	// 8 cores: the per-device terms, not the per-core ones, decide.
	p, err := ParseWith("autos.yaml", []byte(autoPipeline), testRegistry(t), LoadOptions{Devices: 1, Cores: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		devices   int
		host, set int64
		capacity  int64
		dev       int64
		inFlight  int
	}{
		{1, 2, 3, 4, 2, 2 + 2 + 3 + 2},
		{2, 4, 3, 8, 2, 4 + 4 + 3 + 2*2},
		{4, 8, 3, 16, 2, 8 + 8 + 3 + 2*4},
	} {
		e, err := NewEngine(p, Options{Devices: c.devices})
		if err != nil {
			t.Fatalf("%d devices: %v", c.devices, err)
		}
		capOf := func(name string, device int) int64 {
			id, err := e.workers.Lookup(name, device)
			if err != nil {
				t.Fatal(err)
			}
			return e.workers.Capacity(id)
		}
		if got := capOf("workers.host", 0); got != c.host {
			t.Errorf("%d devices: host workers %d, want %d", c.devices, got, c.host)
		}
		if got := capOf("workers.param", 0); got != c.host {
			t.Errorf("%d devices: param workers %d, want %d", c.devices, got, c.host)
		}
		if got := capOf("workers.set", 0); got != c.set {
			t.Errorf("%d devices: set workers %d, want %d (a number stays)", c.devices, got, c.set)
		}
		if got := capOf("workers.dev.{gpu}", c.devices-1); got != c.dev {
			t.Errorf("%d devices: dev workers on the last device %d, want %d", c.devices, got, c.dev)
		}
		id, err := e.locks.Lookup("cpu", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.locks.Capacity(id); got != c.capacity {
			t.Errorf("%d devices: cpu capacity %d, want %d", c.devices, got, c.capacity)
		}
		// AutoOn says what the engine runs with.
		for _, a := range p.AutoOn(c.devices) {
			switch {
			case a.Stage != nil && a.Stage.Name == "host" && a.Value != c.host,
				a.Stage == nil && a.Resource == "cpu" && a.Value != c.capacity:
				t.Errorf("%d devices: AutoOn says %s", c.devices, a)
			}
		}
		if got := p.InFlight(c.devices); got != c.inFlight || e.MaxInFlight() != c.inFlight {
			t.Errorf("%d devices: in flight %d (engine %d), want %d", c.devices, got, e.MaxInFlight(), c.inFlight)
		}
		if err := e.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// The pipeline itself is left as loaded.
	if p.Stages[0].Workers != 2 || p.Resources[0].Capacity != 4 {
		t.Errorf("pipeline changed: workers %d capacity %d", p.Stages[0].Workers, p.Resources[0].Capacity)
	}
}

// Fewer devices than the pipeline was loaded for can make capacity auto
// smaller than a stage's claim: the engine refuses, naming the stage.
func TestEngineOnFewerDevicesRefusesAClaimAboveAutoCapacity(t *testing.T) {
	src := strings.Replace(autoPipeline, "locks: [{cpu: 2}]", "locks: [{cpu: 6}]", 1)
	p, err := ParseWith("autos.yaml", []byte(src), testRegistry(t), LoadOptions{Devices: 2, Cores: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewEngine(p, Options{Devices: 1})
	want := `pipeline "autos": stage "host" takes 6 of "cpu" when it starts, above its capacity auto = 4 on 1 device (4 per device x 1 device, 8 cores)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	e, err := NewEngine(p, Options{Devices: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
