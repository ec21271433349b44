package admission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadMeminfo(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "meminfo")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	total, avail, err := ReadMeminfo(write("MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   12288000 kB\n"))
	if err != nil || total != 24576000<<10 || avail != 12288000<<10 {
		t.Errorf("got %d %d %v", total, avail, err)
	}
	for body, want := range map[string]string{
		"MemFree: 1 kB\n":        "no MemTotal",
		"MemTotal: lots kB\n":    `MemTotal: " lots kB" is not a size in kB`,
		"MemTotal: 1e99999 kB\n": "is not a size in kB",
	} {
		if _, _, err := ReadMeminfo(write(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// The memory to plan for is the machine's unless the variables say
// otherwise; a value that is not a size names the variable.
func TestHostAndDeviceBudgetsFollowTheEnvironment(t *testing.T) {
	t.Setenv(HostEnv, "")
	b, avail, err := Host()
	if err != nil {
		t.Skipf("no meminfo here: %v", err)
	}
	total, _, _ := ReadMeminfo(meminfo)
	if b.Bytes != total || b.Of != "" || avail == 0 || avail > total || !strings.HasPrefix(b.String(), "this machine's ") {
		t.Errorf("the machine's: %+v (%s), available %d; MemTotal %d", b, b, avail, total)
	}
	t.Setenv(HostEnv, "8GiB")
	if b, avail, err := Host(); err != nil || b.Bytes != 8<<30 || avail != 8<<30 || b.String() != "the 8.0 GiB of PROOFLANE_HOST_MEMORY=8GiB" {
		t.Errorf("PROOFLANE_HOST_MEMORY=8GiB: %+v (%s), %d, %v", b, b, avail, err)
	}
	t.Setenv(HostEnv, "lots")
	if _, _, err := Host(); err == nil || !strings.Contains(err.Error(), `PROOFLANE_HOST_MEMORY="lots": want a size`) {
		t.Errorf("PROOFLANE_HOST_MEMORY=lots: %v", err)
	}
	t.Setenv(DeviceEnv, "")
	if b, err := Device(1, "NVIDIA H100", 80<<30); err != nil || b.String() != "the 80.0 GiB of device 1 (NVIDIA H100)" {
		t.Errorf("device: %s, %v", b, err)
	}
	t.Setenv(DeviceEnv, "1MiB")
	if b, err := Device(0, "cpu", 0); err != nil || b.String() != "the 1 MiB of device 0 (PROOFLANE_DEVICE_MEMORY=1MiB)" {
		t.Errorf("device under the variable: %s, %v", b, err)
	}
}

// Check refuses only an estimate above a budget, naming both; no
// estimate and no budget refuse nothing.
func TestCheckNamesTheEstimateAndTheBudget(t *testing.T) {
	r := Refusal{What: Work(1<<28, true, 0), Memory: "host memory", Advice: "a smaller size"}
	budget := Budget{Bytes: 8 << 30, Of: `worker "w1"'s budget`}
	err := Check(r, 768<<30, budget)
	want := `size 268435456 with the key setup needs about 768.0 GiB of host memory, more than the 8.0 GiB of worker "w1"'s budget: a smaller size`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	if ref, ok := err.(*Refusal); !ok || ref.Estimate != 768<<30 || ref.Budget != budget {
		t.Errorf("refusal %#v", err)
	}
	for _, c := range []struct{ est, budget uint64 }{{8 << 30, 8 << 30}, {0, 1}, {1 << 40, 0}} {
		if err := Check(r, c.est, Budget{Bytes: c.budget}); err != nil {
			t.Errorf("estimate %d, budget %d: %v", c.est, c.budget, err)
		}
	}
	if got := Work(4096, false, 2); got != "size 4096 with 2 partitions at once" {
		t.Errorf("Work: %q", got)
	}
}
