package prover

import (
	"github.com/prooflane/prooflane/internal/units"
	"testing"

	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/stages/family"
)

// The device estimate's figures on the CUDA backend's model with the
// kernels' defaults (what prove printed for these runs before the
// backends had memory models of their own), and on the CPU backend's:
// the stages' bases and vectors alone, no context named.
func TestDeviceMemoryOnEachBackendsModel(t *testing.T) {
	gpu := devcuda.Model(devcuda.Options{})
	params := map[string]string{"resident": "2", "g2_on": "device", "gpu_workers": "2", "g2_workers": "2", "bases": "device"}
	small := family.KeyRequest{System: family.System{Name: "chain", Size: 1 << 8}}
	host := map[string]string{"resident": "1", "g2_on": "cpu", "gpu_workers": "1", "bases": "host"}
	resident := map[string]string{"resident": "1", "g2_on": "cpu", "gpu_workers": "1", "bases": "device"}
	for _, c := range []struct {
		name   string
		est    string
		parts  string
		params map[string]string
		size   int
	}{
		{"cuda, 2^8", "775.7 MiB", "the proving key's bases 144 KiB, 1 resident partition(s) 160 KiB, context 768 MiB, G2 MSMs' batch-affine scratch 7.4 MiB", params, 1 << 8},
		{"cuda, 2^12, bases resident", "772 MiB", "the proving key's bases 1.5 MiB, 1 resident partition(s) 2.5 MiB, context 768 MiB", resident, 1 << 12},
		{"cuda, 2^12, bases on the host", "770.9 MiB", "the chunks of the proving key's bases kept on the host 384 KiB, 1 resident partition(s) 2.5 MiB, context 768 MiB", host, 1 << 12},
	} {
		est, parts, _ := Family{}.DeviceMemory(gpu, family.KeyRequest{System: family.System{Name: "chain", Size: c.size}}, c.params, 1)
		if units.Bytes(est) != c.est || parts != c.parts {
			t.Errorf("%s: %s (%s), want %s (%s)", c.name, units.Bytes(est), parts, c.est, c.parts)
		}
	}
	est, parts, _ := Family{}.DeviceMemory(cpu.Model{}, small, params, 1)
	if want := "the proving key's bases 144 KiB, 1 resident partition(s) 160 KiB"; est != (144+160)<<10 || parts != want {
		t.Errorf("cpu: %d bytes (%s), want %d (%s)", est, parts, (144+160)<<10, want)
	}
}
