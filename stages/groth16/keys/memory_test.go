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

func TestARunAboveTheDeviceLimitIsRefusedNamingTheNumbersAndTheSetting(t *testing.T) {
	e := EstimateDevice(1<<20, 2)
	if err := e.CheckDevice(e.Total(), "device 0"); err != nil {
		t.Errorf("an estimate equal to the limit was refused: %v", err)
	}
	err := e.CheckDevice(1<<30, "device 0 (PROOFLANE_DEVICE_MEMORY)")
	want := "needs about 2.6 GiB of device memory (the proving key's bases 576 MiB, 2 resident partition(s) 1.2 GiB, context 768 MiB), more than the 1 GiB of device 0 (PROOFLANE_DEVICE_MEMORY): " +
		"lower the partitions resident on a device (groth16.yaml's resident parameter: --set resident=1) or --size"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KiB", 1 << 30: "1 GiB", 9 << 30: "9 GiB", 5 << 40: "5 TiB"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
