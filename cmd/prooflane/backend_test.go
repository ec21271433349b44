package main

import (
	"strings"
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
)

// The PROOFLANE_CUDA_* variables become the cuda backend's options: each
// sets its field, AFFINE_MAX=0 turns the batch-affine accumulation off
// whatever MSM_ACCUM says, unset or empty ones keep the defaults, and a
// value that is not one, or out of range, is an error naming the
// variable.
func TestCudaOptionsComeFromTheEnvironment(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	got, err := cudaOptions(env(map[string]string{
		"PROOFLANE_CUDA_MSM_C": "18", "PROOFLANE_CUDA_AFFINE_MAX": "1073741824", "PROOFLANE_CUDA_AFFINE_LEVELS": "2",
		"PROOFLANE_CUDA_MSM_ACCUM": "affine", "PROOFLANE_CUDA_SUM_THREADS": "64", "PROOFLANE_CUDA_PROFILE": "1",
	}))
	want := devcuda.Options{MSMWindow: 18, AffineMax: 1 << 30, AffineLevels: 2, Accum: devcuda.AccumAffine, SumThreads: 64, Profile: true}
	if err != nil || got != want {
		t.Errorf("every variable set: %+v, %v; want %+v", got, err, want)
	}
	if got, err := cudaOptions(env(map[string]string{"PROOFLANE_CUDA_MSM_C": ""})); err != nil || got != (devcuda.Options{}) {
		t.Errorf("none set: %+v, %v; want the defaults", got, err)
	}
	off, err := cudaOptions(env(map[string]string{"PROOFLANE_CUDA_AFFINE_MAX": "0", "PROOFLANE_CUDA_MSM_ACCUM": "affine"}))
	if err != nil || off.Accum != devcuda.AccumXYZZ {
		t.Errorf("AFFINE_MAX=0: %+v, %v; want every MSM by XYZZ additions", off, err)
	}
	for kv, msg := range map[[2]string]string{
		{"PROOFLANE_CUDA_MSM_C", "3"}:          `PROOFLANE_CUDA_MSM_C="3": msm window 3: want 0 (by size) or 4 to 24`,
		{"PROOFLANE_CUDA_MSM_C", "wide"}:       `PROOFLANE_CUDA_MSM_C="wide": want a window of 4 to 24`,
		{"PROOFLANE_CUDA_MSM_ACCUM", "fast"}:   `PROOFLANE_CUDA_MSM_ACCUM="fast": want affine or xyzz`,
		{"PROOFLANE_CUDA_AFFINE_MAX", "4GiB"}:  `PROOFLANE_CUDA_AFFINE_MAX="4GiB": want a size in bytes (0: none)`,
		{"PROOFLANE_CUDA_AFFINE_LEVELS", "-1"}: `PROOFLANE_CUDA_AFFINE_LEVELS="-1": affine levels -1`,
		{"PROOFLANE_CUDA_SUM_THREADS", "x"}:    `PROOFLANE_CUDA_SUM_THREADS="x": want a number of threads`,
		{"PROOFLANE_CUDA_PROFILE", "yes"}:      `PROOFLANE_CUDA_PROFILE="yes": want 1 or 0`,
	} {
		if _, err := cudaOptions(env(map[string]string{kv[0]: kv[1]})); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s=%s: %v; want %q", kv[0], kv[1], err, msg)
		}
	}
}

// A bad PROOFLANE_CUDA_* value stops --backend auto with its message
// instead of falling back to the CPU, and leaves --backend cpu alone.
func TestABadCudaVariableIsAnErrorNotAFallBack(t *testing.T) {
	t.Setenv("PROOFLANE_CUDA_MSM_C", "99")
	if rc, _, stderr := prooflane(t, "devices", "--backend", "auto"); rc != 1 || !strings.Contains(stderr, `PROOFLANE_CUDA_MSM_C="99"`) || strings.Contains(stderr, "using the cpu backend") {
		t.Errorf("devices --backend auto: exit %d, stderr %q", rc, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "devices", "--backend", "cpu"); rc != 0 || !strings.Contains(stdout, "backend cpu: 1 device(s)") {
		t.Errorf("devices --backend cpu: exit %d\n%s%s", rc, stdout, stderr)
	}
}

// named is a CPU backend under another name, registered by a test.
type named struct {
	device.Backend
	name string
}

func (b named) Name() string { return b.name }

// A backend registered in a test registry is opened by --backend with
// no edit to the commands, listed in the refusal of an unknown one, and
// auto falls back past a cuda that registry does not have, saying why.
func TestABackendRegisteredInATestIsOpenedByName(t *testing.T) {
	old := shipped
	t.Cleanup(func() { shipped = old })
	shipped.backends = func() *device.Registry {
		return device.NewRegistry().MustRegister(cpu.Factory(), device.NewFactory("emu",
			func(n int, _ struct{}) (device.Backend, error) {
				be, err := cpu.New(n)
				return named{be, "emu"}, err
			},
			func(struct{}) device.MemoryModel { return cpu.Model{} }))
	}
	if rc, stdout, stderr := prooflane(t, "devices", "--backend", "emu"); rc != 0 || !strings.Contains(stdout, "backend emu: 1 device(s)") {
		t.Errorf("devices --backend emu: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, _, stderr := prooflane(t, "devices", "--backend", "cuda"); rc == 0 || !strings.Contains(stderr, `--backend "cuda": want cpu, emu or auto`) {
		t.Errorf("devices --backend cuda: exit %d, stderr %q", rc, stderr)
	}
	rc, stdout, stderr := prooflane(t, "devices", "--backend", "auto")
	if rc != 0 || !strings.Contains(stdout, "backend cpu: 1 device(s)") || !strings.Contains(stderr, `prooflane devices: backend "cuda": unknown backend (have cpu, emu); using the cpu backend`) {
		t.Errorf("devices --backend auto: exit %d\n%s%s", rc, stdout, stderr)
	}
}
