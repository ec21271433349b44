package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/admission"
)

// A run whose keys and buffers cannot fit a device (an artificially small
// PROOFLANE_DEVICE_MEMORY) stops before the key is set up, naming the
// estimate, its parts, the limit and the setting to change; under a
// large enough limit it runs and says the estimate. On the CPU backend
// the estimate is the stages' bases and vectors alone (its memory model
// has no context and no kernel scratch: the CUDA backend's figures are
// pinned in stages/groth16/bls12381/prover).
func TestARunAboveTheDeviceMemoryLimitStopsBeforeItStarts(t *testing.T) {
	keysDir := t.TempDir()
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^8",
		"--partitions", "1", "--out", t.TempDir(), "--keys", keysDir, "--progress", "off"}
	checkDeviceLimit(t, keysDir, args, "256KiB",
		"prooflane prove: size 256 with 1 partition(s) on a device needs about 0.3 MiB of device memory (the proving key's bases 144 KiB, 1 resident partition(s) 160 KiB), "+
			"more than the 0.2 MiB of device 0 (PROOFLANE_DEVICE_MEMORY=256KiB): fewer partitions resident on a device (resident is 2: --set resident=1) or a smaller --size, or PROOFLANE_SKIP_MEMCHECK=1 to try anyway",
		"prooflane prove: size 256 with 1 partition(s) on a device: about 0.3 MiB of device memory, of 2.0 GiB on device 0 (PROOFLANE_DEVICE_MEMORY=2GiB)")
	t.Setenv(admission.DeviceEnv, "lots")
	if rc, _, stderr := prooflane(t, args...); rc != 1 || !strings.Contains(stderr, `PROOFLANE_DEVICE_MEMORY="lots": want a size in bytes`) {
		t.Errorf("a bad limit: exit %d, stderr %q", rc, stderr)
	}
}

// A run above an artificially small host memory limit
// (PROOFLANE_HOST_MEMORY) stops before anything is set up, naming the
// estimate and the limit.
func TestARunAboveTheHostMemoryLimitStopsBeforeItStarts(t *testing.T) {
	keysDir := t.TempDir()
	t.Setenv(admission.HostEnv, "1GiB")
	checkRefused(t, keysDir, "size 262144 with the key setup and 2 partitions at once needs about 1.1 GiB of host memory, more than the 1.0 GiB of PROOFLANE_HOST_MEMORY=1GiB",
		"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^18",
		"--partitions", "2", "--out", t.TempDir(), "--keys", keysDir, "--progress", "off")
}

// checkRefused runs prooflane with args and checks that it exits 1
// saying want, having set nothing up in keysDir.
func checkRefused(t *testing.T, keysDir, want string, args ...string) {
	t.Helper()
	rc, _, stderr := prooflane(t, args...)
	if rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("%s: exit %d, stderr\n%s\nwant it to contain\n%s", args[0], rc, stderr, want)
	}
	if entries, _ := os.ReadDir(keysDir); len(entries) != 0 {
		t.Errorf("%s: the refused run set keys up: %v", args[0], entries)
	}
}

// checkDeviceLimit runs prooflane with args under a device memory limit
// of small, which it must refuse saying refused (checkRefused), then of
// 2 GiB, under which it must run saying under.
func checkDeviceLimit(t *testing.T, keysDir string, args []string, small, refused, under string) {
	t.Helper()
	t.Setenv(admission.DeviceEnv, small)
	checkRefused(t, keysDir, refused, args...)
	t.Setenv(admission.DeviceEnv, "2GiB")
	if rc, _, stderr := prooflane(t, args...); rc != 0 || !strings.Contains(stderr, under) {
		t.Errorf("under the limit: exit %d, stderr %q", rc, stderr)
	}
}

// A key whose bases do not fit a device beside its partitions, but would
// with them kept in host memory, is proved that way, saying so, and its
// proofs verify; a limit below even that is refused naming both
// estimates; a user's own `--set bases=device` is kept, and refused.
// (At 2^12 with g2_on=cpu and one G1 MSM at a time, on the CPU backend:
// 4 MiB resident, 2.9 MiB with the bases on the host.)
func TestBasesThatDoNotFitTheDeviceStayOnTheHost(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "p")
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^12",
		"--partitions", "2", "--set", "resident=1", "--set", "g2_on=cpu", "--set", "gpu_workers=1", "--keys", keysDir, "--progress", "off"}
	t.Setenv(admission.DeviceEnv, "3MiB")
	rc, _, stderr := prooflane(t, append(args, "--out", out)...)
	want := "prooflane prove: the proving key's bases do not fit: size 4096 with 2 partition(s) on a device needs about 4 MiB of device memory " +
		"(the proving key's bases 1.5 MiB, 1 resident partition(s) 2.5 MiB), more than the 3 MiB of device 0 (PROOFLANE_DEVICE_MEMORY=3MiB); " +
		"keeping them in host memory, streamed through the MSMs a chunk at a time (--set bases=host): about 2.9 MiB of device memory " +
		"(the chunks of the proving key's bases kept on the host 384 KiB, 1 resident partition(s) 2.5 MiB)."
	if rc != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr\n%s\nwant it to contain\n%s", rc, stderr, want)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Fatalf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}

	t.Setenv(admission.DeviceEnv, "2MiB")
	rc, _, stderr = prooflane(t, append(args, "--out", t.TempDir()+"/q")...)
	want = "more than the 2 MiB of device 0 (PROOFLANE_DEVICE_MEMORY=2MiB); with the key's bases kept in host memory (--set bases=host) it still needs about 2.9 MiB"
	if rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("below both estimates: exit %d, stderr\n%s\nwant it to contain\n%s", rc, stderr, want)
	}

	t.Setenv(admission.DeviceEnv, "3MiB")
	rc, _, stderr = prooflane(t, append(args, "--out", t.TempDir()+"/r", "--set", "bases=device")...)
	if rc != 1 || strings.Contains(stderr, "keeping them in host memory") || !strings.Contains(stderr, "more than the 3 MiB") {
		t.Errorf("with --set bases=device: exit %d, stderr\n%s", rc, stderr)
	}
}
