package main

import (
	"os"
	"strings"
	"testing"
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
		want string
	}{
		{[]string{"run", "--set", "partitions=9223372036854775807", sim}, "--set partitions: 9223372036854775807 is above 10000, the limit on partitions per job"},
		{[]string{"run", "--partitions", "4294967296", sim}, "--partitions 4294967296: above 10000, the limit on partitions per job"},
		{[]string{"run", "--devices", "100000000", sim}, "--devices 100000000: above 64, the limit on devices"},
		{[]string{"run", manyDevices}, "devices.yaml:2:10: devices: 100000000 is above 64, the limit on devices"},
		{[]string{"run", "--jobs", "9223372036854775807", sim}, "--jobs 9223372036854775807: above 1000000, the limit on jobs per run"},
		{[]string{"run", "--inflight", "100000", sim}, "--inflight 100000: above 256, the limit on jobs in flight"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--partitions", "9223372036854775807"}, "--partitions 9223372036854775807: above 10000, the limit on partitions per job"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--partitions", "4294967296"}, "--partitions 4294967296: above 10000"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--size", "2^10", "--partitions", "100000"}, "--partitions 100000: above 10000"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--pipeline", "../../pipelines/groth16.yaml", "--set", "partitions=100000"}, "--set partitions: 100000 is above 10000"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--size", "2^30"}, `--size: "2^30": above 2^28, the limit on sizes`},
		{[]string{"setup", "--keys", t.TempDir(), "--size", "2^30"}, `--size: "2^30": above 2^28, the limit on sizes`},
		{[]string{"setup", "--keys", t.TempDir(), "--size", "1073741824"}, `--size: "1073741824": above 2^28 (268435456), the limit on sizes`},
		{[]string{"setup", "--keys", t.TempDir(), "--size", "99999999999999999999"}, `above 2^28 (268435456), the limit on sizes`},
		{[]string{"bench", "--keys", t.TempDir(), "--partitions", "20000", "../../pipelines/groth16.yaml"}, "--partitions 20000: above 10000"},
		{[]string{"simulate", "--from", "x.jsonl", "--pipeline", sim, "--in-flight", "1000"}, "--in-flight 1000: above 256, the limit on jobs in flight"},
		{[]string{"devices", "--devices", "100000000"}, "--devices 100000000: above 64, the limit on devices"},
		{[]string{"validate", twoDocs}, "two.yaml:5:1: a second YAML document"},
	} {
		rc, out, stderr := prooflane(t, c.args...)
		if rc != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 1 and %q", c.args, rc, stderr, c.want)
		}
		if out != "" || strings.Contains(stderr, "setup") && c.args[0] != "setup" {
			t.Errorf("%v: did work before refusing: stdout %q stderr %q", c.args, out, stderr)
		}
	}
}

// A pipeline file is read up to 4 MiB: validate and run on /dev/zero say
// so at once (they used to read until memory ran out).
func TestPipelineFileAboveTheSizeLimitIsRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, cmd := range []string{"validate", "run"} {
		rc, _, stderr := prooflane(t, cmd, "/dev/zero")
		if want := "/dev/zero: larger than the limit of 4 MiB for a pipeline file"; rc != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s /dev/zero: exit %d, stderr %q, want exit 1 and %q", cmd, rc, stderr, want)
		}
	}
}
