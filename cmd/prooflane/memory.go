package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages/family"
)

// checkDeviceMemory asks fp (a family.DeviceMemoryEstimator) for the
// memory one device of be (its memory model) needs for a job of req's
// key with plan.perDevice
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
	if admission.Skipped() {
		return nil
	}
	est, parts, lower := admission.DeviceEstimate(fp, be.Memory(), req, plan.params, plan.perDevice)
	if est == 0 {
		return nil
	}
	var devs []admission.Budget
	for _, d := range be.Devices() {
		b, err := admission.Device(d.Index, d.Name, d.MemTotal)
		if err != nil {
			return err
		}
		if b.Bytes > 0 {
			devs = append(devs, b)
		}
	}
	what := fmt.Sprintf("size %d with %d partition(s) on a device", req.System.Size, max(plan.perDevice, 1))
	over, fits := smallestBelow(devs, est)
	if fits {
		if len(devs) > 0 {
			fmt.Fprintf(stderr, "prooflane %s: %s: about %s of device memory, of %s on %s\n", cmd, what, admission.HumanBytes(est), admission.HumanBytes(devs[0].Bytes), devs[0].Of)
		}
		return nil
	}
	refusal := admission.Refusal{What: what, Memory: "device memory", Estimate: est, Parts: parts, Budget: over}
	if hb, ok := fp.(family.HostBaser); ok && plan.reload != nil && canSet(hb.HostBases(), plan) {
		hostEst, hostParts, _ := admission.DeviceEstimate(fp, be.Memory(), req, withParams(plan.params, hb.HostBases()), plan.perDevice)
		if _, fits := smallestBelow(devs, hostEst); fits && hostEst < est {
			if err := plan.reload(hb.HostBases()); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "prooflane %s: the proving key's bases do not fit: %s; keeping them in host memory, streamed through the MSMs a chunk at a time (%s): about %s of device memory (%s). Every partition copies them again, which is slower: fewer resident partitions may let them stay on the device\n",
				cmd, refusal.Error(), setFlagsString(hb.HostBases()), admission.HumanBytes(hostEst), hostParts)
			return nil
		}
		if hostEst < est {
			refusal.Note = fmt.Sprintf("with the key's bases kept in host memory (%s) it still needs about %s (%s)", setFlagsString(hb.HostBases()), admission.HumanBytes(hostEst), hostParts)
		}
	}
	refusal.Advice = fmt.Sprintf("%s, or %s=1 to try anyway", lower, admission.SkipEnv)
	return &refusal
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

// smallestBelow returns the first device budget below est, or fits when
// there is none.
func smallestBelow(devs []admission.Budget, est uint64) (over admission.Budget, fits bool) {
	for _, d := range devs {
		if est > d.Bytes {
			return d, false
		}
	}
	return admission.Budget{}, true
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
// machine's memory (admission.Host); above what is available now it
// warns. A family without an estimate, or PROOFLANE_SKIP_MEMCHECK=1,
// skips it.
func checkHostMemory(stderr io.Writer, cmd string, fp family.Prover, req family.KeyRequest, params []map[string]string, inFlight int) error {
	if admission.Skipped() {
		return nil
	}
	est, setup := admission.HostEstimate(fp, req, params, inFlight)
	if est == 0 {
		return nil
	}
	host, avail, err := admission.Host()
	if errors.Is(err, admission.ErrUnknown) {
		fmt.Fprintf(stderr, "prooflane %s: estimated host memory %s; %v\n", cmd, admission.HumanBytes(est), err)
		return nil
	}
	if err != nil {
		return err
	}
	what := admission.Work(req.System.Size, setup, inFlight)
	if err := admission.Check(admission.Refusal{What: what, Memory: "host memory",
		Advice: fmt.Sprintf("estimate in docs/memory.md; fewer partitions or a smaller --size, or %s=1 to try anyway", admission.SkipEnv)}, est, host); err != nil {
		return err
	}
	note := ""
	if est > avail {
		note = fmt.Sprintf("; more than the %s available now: the machine may swap", admission.HumanBytes(avail))
	}
	fmt.Fprintf(stderr, "prooflane %s: %s: about %s of host memory of %s%s\n", cmd, what, admission.HumanBytes(est), admission.HumanBytes(host.Bytes), note)
	return nil
}
