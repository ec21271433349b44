package keys

import (
	"testing"
)

func TestDeviceEstimateOfTheH200RunFitsItsMeasurement(t *testing.T) {
	// chain 2^24, 2 resident partitions: nvidia-smi's peak was 30207 MiB
	// (docs/scale.md); the estimate is an upper bound within 10%.
	e := EstimateDevice(1<<24, 2)
	measured := uint64(30207) << 20
	if e.Total() < measured || e.Total() > measured*11/10 {
		t.Errorf("estimate %s for a measured %s", HumanBytes(e.Total()), HumanBytes(measured))
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KiB", 1 << 30: "1 GiB", 9 << 30: "9 GiB", 5 << 40: "5 TiB"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
