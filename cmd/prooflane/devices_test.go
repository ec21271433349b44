package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// Multi-device placement on the CPU backend, which presents --devices N
// emulated devices: partitions spread over all of them, every device
// stage holds only its own device's locks, and every proof verifies.
func TestProveOnEmulatedDevicesSpreadsPartitionsWithPerDeviceLocks(t *testing.T) {
	out, keysDir := filepath.Join(t.TempDir(), "out"), t.TempDir()
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain",
		"--size", "2^8", "--partitions", "6", "--devices", "3", "--out", out, "--keys", keysDir, "--progress", "off")
	if rc != 0 {
		t.Fatalf("prove exited %d: %s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 {
		t.Fatalf("verify exited %d: %s%s", rc, stdout, stderr)
	}
	spans, err := tracefile.Read(filepath.Join(out, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if names, _ := spans[0].Resource["prooflane.device_names"].([]any); len(names) != 3 {
		t.Errorf("resource prooflane.device_names = %v, want the 3 devices' names", spans[0].Resource["prooflane.device_names"])
	}
	perDevice := map[int64]int{}
	for _, s := range spans {
		switch s.Str(string(semconv.KeyKind)) {
		case semconv.KindPartition:
			perDevice[s.IntOr(string(semconv.KeyDevice), -1)]++
		case semconv.KindStage:
			dev := s.IntOr(string(semconv.KeyDevice), -1)
			for _, l := range s.Strings(string(semconv.KeyLocks)) {
				if l == "cpu_bandwidth" {
					continue
				}
				if want := fmt.Sprintf("gpu.%d.", dev); len(l) < len(want) || l[:len(want)] != want {
					t.Errorf("stage %q of partition %d on device %d holds %q", s.Str(string(semconv.KeyStage)),
						s.IntOr(string(semconv.KeyPartition), -1), dev, l)
				}
			}
		}
	}
	// Least-loaded placement, ties to the device given the fewest so far:
	// the first three partitions placed land on three different devices.
	if len(perDevice) != 3 || perDevice[0] == 0 || perDevice[1] == 0 || perDevice[2] == 0 {
		t.Errorf("partitions per device %v, want all of devices 0, 1, 2 used", perDevice)
	}
}

func TestDevicesListsTheBackendsDevices(t *testing.T) {
	rc, stdout, stderr := prooflane(t, "devices", "--backend", "cpu", "--devices", "2")
	if rc != 0 || !strings.Contains(stdout, "backend cpu: 2 device(s)") || strings.Count(stdout, "\n  ") != 2 {
		t.Fatalf("devices --backend cpu --devices 2: rc %d\n%s%s", rc, stdout, stderr)
	}
	if rc, _, stderr := prooflane(t, "devices", "--backend", "gpu"); rc == 0 || !strings.Contains(stderr, `--backend "gpu"`) {
		t.Errorf("devices --backend gpu: rc %d, stderr %q; want a failure naming the bad value", rc, stderr)
	}
}
