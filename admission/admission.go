// Package admission decides, before anything is allocated, whether work
// that allocates on a request's behalf (a key setup, a job's partitions)
// fits the memory it may use: the CLI's prove, bench and setup check
// the machine's memory with it, and the service's server and workers
// their budgets.
//
// The contract:
//
//   - The memory to plan for is the machine's (MemTotal, and
//     MemAvailable for a warning) unless PROOFLANE_HOST_MEMORY says
//     otherwise; a device's is its total unless PROOFLANE_DEVICE_MEMORY
//     says otherwise. Both take bytes or a KiB, MiB, GiB or TiB suffix;
//     a value that is not such a size is an error naming the variable.
//   - PROOFLANE_SKIP_MEMCHECK=1 turns the checks off (Skipped).
//   - An estimate comes from the family (family.MemoryEstimator,
//     family.DeviceMemoryEstimator, the latter on the backend's
//     device.MemoryModel); zero is no estimate, which nothing refuses.
//   - Check refuses an estimate above a budget with a *Refusal, whose
//     message names what was estimated, the estimate, the budget and
//     where the budget comes from.
//
// It sits below cmd/prooflane and service and above the families: it
// imports stages/family and device, no family and no backend.
package admission

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages/family"
)

// Environment variables: SkipEnv set to 1 skips the memory checks;
// HostEnv and DeviceEnv are the memory to plan for instead of what the
// machine reports: the host's (instead of MemTotal) and each device's
// (instead of its total; also for the CPU backend's emulated devices,
// which report none). For headroom, and for tests.
const (
	SkipEnv   = "PROOFLANE_SKIP_MEMCHECK"
	HostEnv   = "PROOFLANE_HOST_MEMORY"
	DeviceEnv = "PROOFLANE_DEVICE_MEMORY"
)

// meminfo is the file the machine's memory is read from.
const meminfo = "/proc/meminfo"

// Skipped reports whether PROOFLANE_SKIP_MEMCHECK=1 turns the checks off.
func Skipped() bool { return os.Getenv(SkipEnv) == "1" }

// ParseSize reads a size in bytes, or with a KiB, MiB, GiB or TiB suffix,
// from 1 byte to 1 PiB.
func ParseSize(v string) (uint64, error) {
	num, mult := strings.TrimSpace(v), uint64(1)
	for i, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if n, found := strings.CutSuffix(num, u); found {
			num, mult = strings.TrimSpace(n), 1<<(10*(i+1))
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n == 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q: want a size in bytes, or with KiB, MiB, GiB or TiB, from 1 byte to 1 PiB", v)
	}
	return n * mult, nil
}

// EnvLimit reads the size env names, if set: ok false when it is not.
func EnvLimit(env string) (limit uint64, ok bool, err error) {
	v := strings.TrimSpace(os.Getenv(env))
	if v == "" {
		return 0, false, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, false, fmt.Errorf("%s=%w", env, err)
	}
	return n, true, nil
}

// Budget is memory that admitted work may use, and where the figure comes
// from.
type Budget struct {
	Bytes uint64
	// Of names where Bytes comes from, for "the 8.0 GiB of Of":
	// "PROOFLANE_HOST_MEMORY=8GiB", "device 0 (NVIDIA H100)", `worker
	// "w1"'s --mem-budget`; "" is the machine's memory ("this machine's
	// 24.0 GiB").
	Of string
}

func (b Budget) String() string {
	if b.Of == "" {
		return "this machine's " + HumanBytes(b.Bytes)
	}
	return fmt.Sprintf("the %s of %s", HumanBytes(b.Bytes), b.Of)
}

// ErrUnknown is wrapped by Host when the machine does not say what memory
// it has (no /proc/meminfo): a check has nothing to compare with then.
var ErrUnknown = errors.New("cannot tell the machine's memory")

// Host returns the host memory to plan for: PROOFLANE_HOST_MEMORY when
// set (available is then the same), else the machine's MemTotal and
// MemAvailable; an error wrapping ErrUnknown when the machine does not
// say.
func Host() (b Budget, available uint64, err error) {
	limit, ok, err := EnvLimit(HostEnv)
	if err != nil {
		return Budget{}, 0, err
	}
	if ok {
		return Budget{Bytes: limit, Of: HostEnv + "=" + strings.TrimSpace(os.Getenv(HostEnv))}, limit, nil
	}
	total, avail, err := ReadMeminfo(meminfo)
	if err != nil {
		return Budget{}, 0, fmt.Errorf("%w: %w", ErrUnknown, err)
	}
	return Budget{Bytes: total}, avail, nil
}

// Device returns device index's memory to plan for:
// PROOFLANE_DEVICE_MEMORY when set, else total, its own figure (zero: it
// reports none, and there is no budget). name is the device's, for the
// budget's Of.
func Device(index int, name string, total uint64) (Budget, error) {
	limit, ok, err := EnvLimit(DeviceEnv)
	if err != nil {
		return Budget{}, err
	}
	if ok {
		return Budget{Bytes: limit, Of: fmt.Sprintf("device %d (%s=%s)", index, DeviceEnv, strings.TrimSpace(os.Getenv(DeviceEnv)))}, nil
	}
	return Budget{Bytes: total, Of: fmt.Sprintf("device %d (%s)", index, name)}, nil
}

// HostEstimate is fp's largest host memory estimate (family.MemoryEstimator)
// for req with inFlight partitions at once over the pipelines' params
// (none: the family's defaults), and whether it includes the key setup.
// Zero: the family has no estimate for it.
func HostEstimate(fp family.Prover, req family.KeyRequest, params []map[string]string, inFlight int) (est uint64, setup bool) {
	me, ok := fp.(family.MemoryEstimator)
	if !ok {
		return 0, false
	}
	if len(params) == 0 {
		params = []map[string]string{nil}
	}
	for _, p := range params {
		if e, s := me.HostMemory(req, p, inFlight); e > est {
			est, setup = e, s
		}
	}
	return est, setup
}

// DeviceEstimate is fp's largest device memory estimate
// (family.DeviceMemoryEstimator) for req with perDevice partitions on a
// device at once over the pipelines' params, on a backend of memory model
// m, with what it is made of and the setting that lowers it. Zero: the
// family has no estimate for it.
func DeviceEstimate(fp family.Prover, m device.MemoryModel, req family.KeyRequest, params []map[string]string, perDevice int) (est uint64, parts, lower string) {
	de, ok := fp.(family.DeviceMemoryEstimator)
	if !ok {
		return 0, "", ""
	}
	for _, p := range params {
		if e, pa, l := de.DeviceMemory(m, req, p, perDevice); e > est {
			est, parts, lower = e, pa, l
		}
	}
	return est, parts, lower
}

// Work says what an estimate is of, for a message: "size 4096 with the
// key setup and 2 partitions at once" (setup: the key setup runs first;
// inFlight 0: none of a job's partitions).
func Work(size int, setup bool, inFlight int) string {
	var parts []string
	if setup {
		parts = append(parts, "the key setup")
	}
	if inFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d partitions at once", inFlight))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("size %d", size)
	}
	return fmt.Sprintf("size %d with %s", size, strings.Join(parts, " and "))
}

// Refusal is an estimate above a budget.
type Refusal struct {
	// What the estimate is of: "size 4096 with the key setup" (Work), or
	// "job \"j...\"".
	What string
	// Memory is the kind: "host memory", "device memory", "each
	// device's memory".
	Memory   string
	Estimate uint64
	// Parts says what the estimate is made of ("" when it is one figure).
	Parts  string
	Budget Budget
	// Note adds to the comparison, after the budget ("" for none).
	Note string
	// Advice says what to change, last ("" for none).
	Advice string
}

func (r *Refusal) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s needs about %s of %s", r.What, HumanBytes(r.Estimate), r.Memory)
	if r.Parts != "" {
		fmt.Fprintf(&b, " (%s)", r.Parts)
	}
	fmt.Fprintf(&b, ", more than %s", r.Budget)
	if r.Note != "" {
		fmt.Fprintf(&b, "; %s", r.Note)
	}
	if r.Advice != "" {
		fmt.Fprintf(&b, ": %s", r.Advice)
	}
	return b.String()
}

// Check returns a *Refusal (r with Estimate and Budget filled) when est
// is above budget's bytes, nil when it fits, when budget is zero (no
// budget) or when est is zero (no estimate).
func Check(r Refusal, est uint64, budget Budget) error {
	if est == 0 || budget.Bytes == 0 || est <= budget.Bytes {
		return nil
	}
	r.Estimate, r.Budget = est, budget
	return &r
}

// ReadMeminfo returns MemTotal and MemAvailable from a meminfo file
// (MemAvailable is MemTotal when absent or larger).
func ReadMeminfo(path string) (total, avail uint64, err error) {
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

// HumanBytes writes n in MiB, or GiB from 1 GiB, with one decimal (a MiB
// figure without a zero one): "768 MiB", "3.1 GiB".
func HumanBytes(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
}
