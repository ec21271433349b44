package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages/family"
)

// memSkipEnvVariable set to 1 skips the host and device memory checks.
const memSkipEnvVariable = "PROOFLANE_SKIP_MEMCHECK"

// The memory to plan for instead of what the machine reports: the host's
// (instead of MemTotal) and each device's (instead of its total; also for
// the CPU backend's emulated devices, which report none), in bytes or
// with a KiB, MiB, GiB or TiB suffix. For headroom, and for tests.
const (
	hostMemEnvVariable   = "PROOFLANE_HOST_MEMORY"
	deviceMemEnvVariable = "PROOFLANE_DEVICE_MEMORY"
)

// memLimit reads the limit env names, if set: ok false when it is not.
func memLimit(env string) (limit uint64, ok bool, err error) {
	v := strings.TrimSpace(os.Getenv(env))
	if v == "" {
		return 0, false, nil
	}
	num, mult := v, uint64(1)
	for i, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if n, found := strings.CutSuffix(v, u); found {
			num, mult = strings.TrimSpace(n), 1<<(10*(i+1))
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n == 0 || n > (1<<50)/mult {
		return 0, false, fmt.Errorf("%s=%q: want a size in bytes, or with KiB, MiB, GiB or TiB, from 1 byte to 1 PiB", env, v)
	}
	return n * mult, true, nil
}

// checkDeviceMemory asks fp (a family.DeviceMemoryEstimator) for the
// memory one device needs for a job of req's key with plan.perDevice
// partitions placed on it at once (the largest estimate over the plan's
// pipelines), and refuses before any work when it exceeds a device's
// memory (its total, or PROOFLANE_DEVICE_MEMORY), naming both, the
// estimate's parts and the setting that lowers it. When the family can
// keep the key's bases in host memory (family.HostBaser), the user set
// none of its params, and the estimate fits with them (and is lower), it
// reloads the run's pipelines with them (plan.reload) and says so
// instead. The CPU
// backend's devices report no memory: checked only against
// PROOFLANE_DEVICE_MEMORY.
func checkDeviceMemory(stderr io.Writer, cmd string, fp family.Prover, req family.KeyRequest, plan devicePlan, be device.Backend) error {
	de, ok := fp.(family.DeviceMemoryEstimator)
	if !ok || os.Getenv(memSkipEnvVariable) == "1" {
		return nil
	}
	est, parts, lower := largestEstimate(de, req, plan.params, plan.perDevice)
	if est == 0 {
		return nil
	}
	limit, fromEnv, err := memLimit(deviceMemEnvVariable)
	if err != nil {
		return err
	}
	var devs []deviceMemory
	for _, d := range be.Devices() {
		dm := deviceMemory{total: d.MemTotal, from: fmt.Sprintf("device %d (%s)", d.Index, d.Name)}
		if fromEnv {
			dm = deviceMemory{total: limit, from: fmt.Sprintf("device %d (%s=%s)", d.Index, deviceMemEnvVariable, os.Getenv(deviceMemEnvVariable))}
		}
		if dm.total > 0 {
			devs = append(devs, dm)
		}
	}
	needs := func(est uint64, parts string) string {
		return fmt.Sprintf("size %d with %d partition(s) on a device needs about %s of device memory (%s)", req.Size, max(plan.perDevice, 1), humanBytes(est), parts)
	}
	over, fits := smallestBelow(devs, est)
	if fits {
		if len(devs) > 0 {
			fmt.Fprintf(stderr, "prooflane %s: size %d with %d partition(s) on a device: about %s of device memory, of %s on %s\n", cmd, req.Size, max(plan.perDevice, 1), humanBytes(est), humanBytes(devs[0].total), devs[0].from)
		}
		return nil
	}
	refusal := fmt.Sprintf("%s, more than the %s of %s", needs(est, parts), humanBytes(over.total), over.from)
	if hb, ok := fp.(family.HostBaser); ok && plan.reload != nil && canSet(hb.HostBases(), plan) {
		hostEst, hostParts, _ := largestEstimate(de, req, withParams(plan.params, hb.HostBases()), plan.perDevice)
		if _, fits := smallestBelow(devs, hostEst); fits && hostEst < est {
			if err := plan.reload(hb.HostBases()); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "prooflane %s: the proving key's bases do not fit: %s; keeping them in host memory, streamed through the MSMs a chunk at a time (%s): about %s of device memory (%s). Every partition copies them again, which is slower: fewer resident partitions may let them stay on the device\n",
				cmd, refusal, setFlagsString(hb.HostBases()), humanBytes(hostEst), hostParts)
			return nil
		}
		if hostEst < est {
			refusal += fmt.Sprintf("; with the key's bases kept in host memory (%s) it still needs about %s (%s)", setFlagsString(hb.HostBases()), humanBytes(hostEst), hostParts)
		}
	}
	return fmt.Errorf("%s: %s, or %s=1 to try anyway", refusal, lower, memSkipEnvVariable)
}

// withParams is every pipeline's params with override set.
func withParams(params []map[string]string, override map[string]string) []map[string]string {
	out := make([]map[string]string, len(params))
	for i, p := range params {
		out[i] = maps.Clone(p)
		maps.Copy(out[i], override)
	}
	return out
}

// deviceMemory is one device's memory for the check, and where the
// figure comes from.
type deviceMemory struct {
	total uint64
	from  string
}

// smallestBelow returns the first device with less memory than est, or
// fits when there is none.
func smallestBelow(devs []deviceMemory, est uint64) (over deviceMemory, fits bool) {
	for _, d := range devs {
		if est > d.total {
			return d, false
		}
	}
	return deviceMemory{}, true
}

// largestEstimate is de's largest estimate over the pipelines' params.
func largestEstimate(de family.DeviceMemoryEstimator, req family.KeyRequest, params []map[string]string, perDevice int) (est uint64, parts, lower string) {
	for _, p := range params {
		if e, pa, l := de.DeviceMemory(req, p, perDevice); e > est {
			est, parts, lower = e, pa, l
		}
	}
	return est, parts, lower
}

// canSet reports whether the run may take params: the user set none of
// them and every pipeline of the plan declares them all.
func canSet(params map[string]string, plan devicePlan) bool {
	for k := range params {
		if _, set := plan.set[k]; set {
			return false
		}
		for _, p := range plan.params {
			if _, declared := p[k]; !declared {
				return false
			}
		}
	}
	return len(params) > 0
}

// setFlagsString writes params as --set flags, sorted.
func setFlagsString(params map[string]string) string {
	var flags []string
	for k, v := range params {
		flags = append(flags, "--set "+k+"="+v)
	}
	slices.Sort(flags)
	return strings.Join(flags, " ")
}

// checkHostMemory asks fp (a family.MemoryEstimator) for the host memory
// a job of req's key with inFlight partitions at once needs under the
// largest of the pipelines' params (none: a setup; the key setup included
// when it has to run), and refuses before any work when it exceeds the
// machine's memory; above what is available now it warns. A family
// without an estimate, or PROOFLANE_SKIP_MEMCHECK=1, skips it.
func checkHostMemory(stderr io.Writer, cmd string, fp family.Prover, req family.KeyRequest, params []map[string]string, inFlight int) error {
	me, ok := fp.(family.MemoryEstimator)
	if !ok || os.Getenv(memSkipEnvVariable) == "1" {
		return nil
	}
	if len(params) == 0 {
		params = []map[string]string{nil} // the family's defaults
	}
	var est uint64
	var setup bool
	for _, p := range params {
		if e, s := me.HostMemory(req, p, inFlight); e > est {
			est, setup = e, s
		}
	}
	if est == 0 {
		return nil
	}
	total, avail, err := readMeminfo("/proc/meminfo")
	limit, limited, lerr := memLimit(hostMemEnvVariable)
	if lerr != nil {
		return lerr
	}
	if limited {
		total, avail, err = limit, limit, nil
	}
	if err != nil {
		fmt.Fprintf(stderr, "prooflane %s: estimated host memory %s; cannot tell what the machine has: %v\n", cmd, humanBytes(est), err)
		return nil
	}
	var parts []string
	if setup {
		parts = append(parts, "the key setup")
	}
	if inFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d partitions at once", inFlight))
	}
	what := strings.Join(parts, " and ")
	if est > total {
		machine := fmt.Sprintf("this machine's %s", humanBytes(total))
		if limited {
			machine = fmt.Sprintf("the %s of %s=%s", humanBytes(total), hostMemEnvVariable, os.Getenv(hostMemEnvVariable))
		}
		return fmt.Errorf("size %d with %s needs about %s of host memory, more than %s (estimate in docs/memory.md; fewer partitions or a smaller --size, or %s=1 to try anyway)",
			req.Size, what, humanBytes(est), machine, memSkipEnvVariable)
	}
	note := ""
	if est > avail {
		note = fmt.Sprintf("; more than the %s available now: the machine may swap", humanBytes(avail))
	}
	fmt.Fprintf(stderr, "prooflane %s: size %d with %s: about %s of host memory of %s%s\n", cmd, req.Size, what, humanBytes(est), humanBytes(total), note)
	return nil
}

// readMeminfo returns MemTotal and MemAvailable from a meminfo file.
func readMeminfo(path string) (total, avail uint64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<16))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "MemTotal" && k != "MemAvailable") {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil || kb > 1<<44 {
			return 0, 0, fmt.Errorf("%s: %s: %q is not a size in kB", path, k, v)
		}
		if k == "MemTotal" {
			total = kb << 10
		} else {
			avail = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	if total == 0 {
		return 0, 0, errors.New(path + ": no MemTotal")
	}
	if avail == 0 || avail > total {
		avail = total
	}
	return total, avail, nil
}
