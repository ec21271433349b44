package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	devcuda "github.com/prooflane/prooflane/device/cuda"
)

// setup --backend cuda without CUDA is an error before any setup, writing
// nothing; auto falls back to the CPU (gnark's setup) and says so; an
// unknown backend is refused.
func TestSetupBackendCUDAWithoutSupportIsAClearErrorAndAutoFallsBack(t *testing.T) {
	if be, err := devcuda.New(devcuda.Options{}); err == nil {
		be.Close()
		t.Skip("a CUDA device is present")
	}
	keysDir := t.TempDir()
	args := func(backend string) []string {
		return []string{"setup", "--circuit", "chain", "--size", "2^8", "--keys", keysDir, "--backend", backend}
	}
	if rc, _, stderr := prooflane(t, args("cuda")...); rc != 1 || !strings.Contains(stderr, "cuda backend") {
		t.Errorf("--backend cuda: exit %d, stderr %q; want the cuda error", rc, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(keysDir, "*.pk*")); len(m) != 0 {
		t.Errorf("--backend cuda without CUDA wrote %v", m)
	}
	if rc, stdout, stderr := prooflane(t, args("auto")...); rc != 0 || !strings.Contains(stderr, "prooflane setup: cuda backend") || !strings.Contains(stderr, "using the cpu backend") || !strings.Contains(stdout, `circuit "chain" size 256`) {
		t.Errorf("--backend auto: exit %d, stdout %q, stderr %q", rc, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(keysDir, "chain-256.pk")); err != nil {
		t.Errorf("--backend auto: %v", err)
	}
	if rc, _, stderr := prooflane(t, args("tpu")...); rc != 1 || !strings.Contains(stderr, `prooflane setup: --backend "tpu": want cpu, cuda or auto`) {
		t.Errorf("--backend tpu: exit %d, stderr %q", rc, stderr)
	}
}
