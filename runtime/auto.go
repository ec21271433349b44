package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/resources"
)

// This file sizes `workers: auto` and `capacity: auto` from the machine:
// the cores of the host and the devices the pipeline runs on. The rule is
// in AutoWorkers and AutoCapacity alone; the loader resolves each auto
// value with them for the devices and cores it was given (LoadOptions),
// and an engine built for another device count resolves them again for
// its own (Pipeline.workersOn, Pipeline.resourcesOn).

// Auto is the value a pipeline writes for a count the machine decides:
// `workers: auto` on a stage, `capacity: auto` on a resource.
const Auto = "auto"

// The figures of the auto rule: per device fed, and per core.
const (
	// autoHostWorkers is a host stage's workers per device fed.
	autoHostWorkers = 2
	// autoCoresPerHostWorker is the cores a host stage's worker gets when
	// the cores allow more workers than the devices ask for.
	autoCoresPerHostWorker = 4
	// autoDeviceWorkers is a device-bound stage's workers on each device.
	autoDeviceWorkers = 2
	// autoCapacity is a host resource's capacity per device fed.
	autoCapacity = 4
	// autoCoresPerCapacity is the cores a unit of a host resource's
	// capacity stands for when the cores allow more.
	autoCoresPerCapacity = 2
)

// AutoWorkers is what `workers: auto` resolves to for a stage on a
// machine with the given devices and cores.
//
// A host stage (not device-bound) feeds every device: with N devices it
// needs N times the work in flight to keep them all as busy as one, so it
// gets 2 workers per device, or one per 4 cores when the cores allow
// more; the cores cap it at max(2, cores), since more workers than cores
// only contend for them (and for the memory bandwidth that cpu_bandwidth
// guards). A device-bound stage's workers already count per device (each
// device has its own pool), so it gets 2 on each device whatever the
// device count: one worker prepares a partition while the other holds the
// device; it is not capped by cores, since such a worker mostly waits on
// its device.
//
// Why one per 4 cores: a Groth16 or PLONK solve keeps about one core busy
// whatever the machine (gnark's solver walks its dependency levels;
// docs/scale.md), so two workers left 14 of an H200 host's 16 cores idle
// while its GPU waited. Measured with these counts set by hand
// (docs/design/scheduling.md): sha256 at 2^20 on one H200, 16 cores, 4
// synthesis workers and a cpu_bandwidth of 8 proved 8.23 proofs/s against
// 4.83 with 2 and 4; chain at 2^20 on two H200s, 32 cores, 8 and 16 proved
// 12.69 against 12.16 with 4 and 8; chain at 2^20 on one H200, GPU bound
// already, 7.00 against 7.34 in the same run, within the noise between
// runs, at twice the host memory. At 2^24 and 2^26 (4 partitions, 2
// workers) the GPU was busy 5-17% of the time, synthesis the long pole.
// With this rule, chain at 2^22 on one H200 (8 partitions) proved 60.2
// proofs/min at its 4 workers against 54.4 with 2 and 56.0 with 8. A
// layout that knows better gives numbers.
func AutoWorkers(deviceBound bool, devices, cores int) int {
	if deviceBound {
		return autoDeviceWorkers
	}
	return min(max(autoHostWorkers*max(devices, 1), cores/autoCoresPerHostWorker), max(autoHostWorkers, cores))
}

// AutoCapacity is what `capacity: auto` resolves to for a host resource
// (one not named with `{gpu}`) on a machine with the given devices and
// cores: 4 per device, or one per 2 cores when that is more, at most
// max(4, 2*cores). Such a resource (the shipped layouts' cpu_bandwidth,
// which a solve takes 2 of) bounds host work that feeds every device, so
// like a host stage's workers it grows with the devices and the cores,
// twice the host workers' count: the figures AutoWorkers cites.
func AutoCapacity(devices, cores int) int64 {
	perDevice := int64(autoCapacity) * int64(max(devices, 1))
	return min(max(perDevice, int64(cores/autoCoresPerCapacity)), max(int64(autoCapacity), 2*int64(cores)))
}

// AutoValue records one count a pipeline left to the machine.
type AutoValue struct {
	// Stage is the stage whose workers were auto; nil for a resource.
	Stage *Stage
	// Resource is the resource whose capacity was auto; "" for a stage.
	Resource string
	// Value is the count it resolved to, for Pipeline.Devices and
	// Pipeline.Cores.
	Value int64
	// Why says how: "2 per device x 2 devices, 16 cores".
	Why string
}

// String reads "synthesize: workers auto = 4 (2 per device x 2 devices,
// 16 cores)" or "cpu_bandwidth: capacity auto = 8 (...)".
func (a AutoValue) String() string {
	if a.Stage != nil {
		return fmt.Sprintf("%s: workers auto = %d (%s)", a.Stage.Name, a.Value, a.Why)
	}
	return fmt.Sprintf("%s: capacity auto = %d (%s)", a.Resource, a.Value, a.Why)
}

// autoWorkersWhy explains AutoWorkers' result.
func autoWorkersWhy(deviceBound bool, devices, cores int) string {
	if deviceBound && devices == 1 {
		return fmt.Sprintf("%d per device, 1 device", autoDeviceWorkers)
	}
	if deviceBound {
		return fmt.Sprintf("%d per device, on each of %d devices", autoDeviceWorkers, devices)
	}
	per := max(devices, 1) * autoHostWorkers
	return autoWhy(int64(AutoWorkers(false, devices, cores)), int64(per), int64(cores/autoCoresPerHostWorker),
		fmt.Sprintf("%d per device x %s", autoHostWorkers, plural(devices, "device")), autoCoresPerHostWorker,
		fmt.Sprintf(" by %s", plural(cores, "core")), cores)
}

// autoCapacityWhy explains AutoCapacity's result.
func autoCapacityWhy(devices, cores int) string {
	per := int64(max(devices, 1)) * autoCapacity
	return autoWhy(AutoCapacity(devices, cores), per, int64(cores/autoCoresPerCapacity),
		fmt.Sprintf("%d per device x %s", autoCapacity, plural(devices, "device")), autoCoresPerCapacity,
		fmt.Sprintf(", twice %s", plural(cores, "core")), cores)
}

// autoWhy says which term of an auto rule gave got: the per-device count
// (perDevice, said as perDeviceWhy), the per-core one (perCore, one per
// coresPer cores), or the cap (said as capWhy).
func autoWhy(got, perDevice, perCore int64, perDeviceWhy string, coresPer int, capWhy string, cores int) string {
	switch {
	case got < max(perDevice, perCore):
		return fmt.Sprintf("%s, capped at %d%s", perDeviceWhy, got, capWhy)
	case perCore > perDevice:
		return fmt.Sprintf("1 per %d cores x %d cores, more than %s", coresPer, cores, perDeviceWhy)
	}
	return fmt.Sprintf("%s, %s", perDeviceWhy, plural(cores, "core"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// isAuto reports whether n is the scalar `auto`, written or substituted.
func isAuto(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == Auto
}

// countOrAuto reads a whole number no smaller than lo, or `auto` (auto is
// then true). A value that is neither gets a problem saying auto is
// allowed.
func countOrAuto(ps *problems, n *yaml.Node, what string, lo int64) (v int64, auto, ok bool) {
	if isAuto(n) {
		return 0, true, true
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		ps.at(n, "%s: want a whole number or %q, got %s", what, Auto, kindName(n))
		return 0, false, false
	}
	_, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) && !strings.Contains(n.Value, "${") {
		ps.at(n, "%s: want a whole number or %q, got %q", what, Auto, n.Value)
		return 0, false, false
	}
	v, ok = integer(ps, n, what, lo)
	return v, false, ok
}

// resolveAuto sizes the auto values recorded while loading, now that
// every stage's device binding is known: stages' workers and the
// pipeline's list of auto values (resources' capacities were sized when
// they were declared, before any lock was checked against them).
func (l *loader) resolveAuto() {
	p := l.p
	var stageAutos []AutoValue
	for _, s := range p.Stages {
		if !s.WorkersAuto {
			continue
		}
		n := AutoWorkers(s.DeviceBound, p.Devices, p.Cores)
		s.Workers = n
		stageAutos = append(stageAutos, AutoValue{Stage: s, Value: int64(n), Why: autoWorkersWhy(s.DeviceBound, p.Devices, p.Cores)})
	}
	// Resources first, as the file declares them; then stages in pipeline
	// order.
	p.Auto = append(p.Auto, stageAutos...)
}

// AutoOn is the pipeline's auto values on an engine with the given
// devices (Pipeline.Auto when that is the count it was loaded for), in
// Auto's order: what an engine built with Options.Devices = devices runs
// with.
func (p *Pipeline) AutoOn(devices int) []AutoValue {
	if devices <= 0 || devices == p.Devices {
		return p.Auto
	}
	out := make([]AutoValue, 0, len(p.Auto))
	for _, a := range p.Auto {
		if a.Stage != nil {
			a.Value = int64(AutoWorkers(a.Stage.DeviceBound, devices, p.cores()))
			a.Why = autoWorkersWhy(a.Stage.DeviceBound, devices, p.cores())
		} else {
			a.Value = AutoCapacity(devices, p.cores())
			a.Why = autoCapacityWhy(devices, p.cores())
		}
		out = append(out, a)
	}
	return out
}

// workersOn returns each stage's workers (by Stage.index) on an engine
// with the given devices: the loaded counts, with `auto` resolved again
// when devices is not the count the pipeline was loaded for.
func (p *Pipeline) workersOn(devices int) []int {
	out := make([]int, len(p.Stages))
	for _, s := range p.Stages {
		out[s.index] = s.Workers
		if s.WorkersAuto && devices != p.Devices {
			out[s.index] = AutoWorkers(s.DeviceBound, devices, p.cores())
		}
	}
	return out
}

// resourcesOn returns the pipeline's resources on an engine with the given
// devices: the loaded declarations, with `capacity: auto` resolved again
// when devices is not the count the pipeline was loaded for. Fewer devices
// can mean a smaller capacity: a stage whose locks (with the spans it
// starts) no longer fit is an error naming it.
func (p *Pipeline) resourcesOn(devices int) ([]resources.Decl, error) {
	if devices == p.Devices || len(p.autoResources) == 0 {
		return p.Resources, nil
	}
	out := append([]resources.Decl(nil), p.Resources...)
	for _, i := range p.autoResources {
		out[i].Capacity = AutoCapacity(devices, p.cores())
	}
	for _, s := range p.Stages {
		var sums map[int]*weightSum
		add := func(lk Lock) {
			if sums == nil {
				sums = map[int]*weightSum{}
			}
			if sums[lk.decl] == nil {
				sums[lk.decl] = &weightSum{}
			}
			sums[lk.decl].add(lk.Weight)
		}
		for _, lk := range s.Locks {
			add(lk)
		}
		for _, sp := range s.spanStarts {
			add(sp.Lock)
		}
		for _, i := range p.autoResources {
			if sum := sums[i]; sum != nil && sum.above(out[i].Capacity) {
				return nil, fmt.Errorf("pipeline %q: stage %q takes %s of %q when it starts, above its capacity auto = %d on %s (%s)",
					p.Name, s.Name, sum.String(), out[i].Name, out[i].Capacity, plural(devices, "device"), autoCapacityWhy(devices, p.cores()))
			}
		}
	}
	return out, nil
}

// cores is the core count auto values are sized for; a Pipeline built in
// code without one takes this machine's.
func (p *Pipeline) cores() int {
	if p.Cores > 0 {
		return p.Cores
	}
	return hostCores()
}
