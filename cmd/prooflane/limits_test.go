package main

import (
	"os"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/admission"
)

// Counts and sizes beyond what prooflane can hold are refused with an
// error naming the limit, before any work: each of these used to panic in
// makeslice, run out of memory, or be accepted.
func TestCountsAndSizesAboveTheLimitsAreRefused(t *testing.T) {
	sim := "../../pipelines/sim-groth16.yaml"
	dir := t.TempDir()
	manyDevices := writeFile(t, dir, "devices.yaml", "pipeline: many\ndevices: 100000000\nstages:\n  a: {type: sim.device}\n")
	twoDocs := writeFile(t, dir, "two.yaml", "pipeline: one\nstages:\n  a: {type: sim.sleep}\n---\npipeline: two\n")
	for _, c := range []struct {
		args []string
		rc   int // 2: a flag mistake; 1: the pipeline's problem
		want string
	}{
		{[]string{"run", "--set", "partitions=9223372036854775807", sim}, 2, "--set partitions: 9223372036854775807 is above 10000, the limit on partitions per job"},
		{[]string{"run", "--partitions", "4294967296", sim}, 2, "--partitions 4294967296: above 10000, the limit on partitions per job"},
		{[]string{"run", "--devices", "100000000", sim}, 2, "--devices 100000000: above 64, the limit on devices"},
		{[]string{"run", manyDevices}, 1, "devices.yaml:2:10: devices: 100000000 is above 64, the limit on devices"},
		{[]string{"run", "--jobs", "9223372036854775807", sim}, 2, "--jobs 9223372036854775807: above 1000000, the limit on jobs per run"},
		{[]string{"run", "--inflight", "100000", sim}, 2, "--inflight 100000: above 256, the limit on jobs in flight"},
		{[]string{"bench", "--gnark", "100000"}, 2, "--gnark 100000: want 0 to 1000, the limit on gnark proofs"},
		{[]string{"bench", "--gnark", "-1"}, 2, "--gnark -1: want 0 to 1000, the limit on gnark proofs"},
		{[]string{"prove", "--size", "2^99999999999999999999", "--out", dir + "/o"}, 2, "above 2^28, the limit on sizes"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--partitions", "9223372036854775807"}, 2, "--partitions 9223372036854775807: above 10000, the limit on partitions per job"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--partitions", "4294967296"}, 2, "--partitions 4294967296: above 10000"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--size", "2^10", "--partitions", "100000"}, 2, "--partitions 100000: above 10000"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--pipeline", "../../pipelines/groth16.yaml", "--set", "partitions=100000"}, 2, "--set partitions: 100000 is above 10000"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--size", "2^30"}, 2, `--size: "2^30": above 2^28, the limit on sizes`},
		{[]string{"setup", "--keys", t.TempDir(), "--size", "2^30"}, 2, `--size: "2^30": above 2^28, the limit on sizes`},
		{[]string{"setup", "--keys", t.TempDir(), "--size", "1073741824"}, 2, `--size: "1073741824": above 2^28 (268435456), the limit on sizes`},
		{[]string{"setup", "--keys", t.TempDir(), "--size", "99999999999999999999"}, 2, `above 2^28 (268435456), the limit on sizes`},
		{[]string{"bench", "--keys", t.TempDir(), "--partitions", "20000", "../../pipelines/groth16.yaml"}, 2, "--partitions 20000: above 10000"},
		{[]string{"simulate", "--from", "x.jsonl", "--pipeline", sim, "--in-flight", "1000"}, 2, "--in-flight 1000: above 256, the limit on jobs in flight"},
		{[]string{"simulate", "--from", "x.jsonl", "--pipeline", sim, "--inflight", "1000"}, 2, "--inflight 1000: above 256, the limit on jobs in flight"},
		{[]string{"devices", "--devices", "100000000"}, 2, "--devices 100000000: above 64, the limit on devices"},
		{[]string{"validate", twoDocs}, 1, "two.yaml:5:1: a second YAML document"},
	} {
		rc, out, stderr := prooflane(t, c.args...)
		if rc != c.rc || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit %d and %q", c.args, rc, stderr, c.rc, c.want)
		}
		if out != "" || strings.Contains(stderr, "setup") && c.args[0] != "setup" {
			t.Errorf("%v: did work before refusing: stdout %q stderr %q", c.args, out, stderr)
		}
	}
}

// A pipeline file is read up to 1 MiB (pipelines.Source, as runtime.Load),
// and only a regular file: validate and run on /dev/zero say so at once
// (they used to read until memory ran out).
func TestPipelineFileAboveTheSizeLimitIsRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, cmd := range []string{"validate", "run"} {
		rc, _, stderr := prooflane(t, cmd, "/dev/zero")
		if want := "/dev/zero: a device, not a regular file"; rc != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s /dev/zero: exit %d, stderr %q, want exit 1 and %q", cmd, rc, stderr, want)
		}
	}
}

// prove's memory estimate counts the partitions in flight, which the
// pipeline's max_in_flight bounds (12 for groth16.yaml), not every
// partition of the job: 200 partitions at 2^28 are refused as 12 at once.
func TestMemoryEstimateCountsOnlyThePartitionsInFlight(t *testing.T) {
	if total, _, err := admission.ReadMeminfo("/proc/meminfo"); err != nil || total >= 768<<30 {
		t.Skip("needs /proc/meminfo and under 768 GiB, so that a 2^28 setup is refused")
	}
	rc, _, stderr := prooflane(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--size", "2^28",
		"--partitions", "200", "--keys", t.TempDir(), "--out", t.TempDir())
	if want := "with the key setup and 12 partitions at once needs about"; rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q, want exit 1 and %q", rc, stderr, want)
	}
}
