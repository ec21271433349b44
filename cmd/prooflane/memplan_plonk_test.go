package main

import (
	"testing"

	"github.com/prooflane/prooflane/admission"
)

// A PLONK run above an artificially small PROOFLANE_HOST_MEMORY stops
// before anything is set up, naming the estimate and the limit: prove
// and setup alike.
func TestAPlonkRunAboveTheHostMemoryLimitStopsBeforeItStarts(t *testing.T) {
	keysDir := t.TempDir()
	t.Setenv(admission.HostEnv, "1GiB")
	checkRefused(t, keysDir, "size 262144 with the key setup and 2 partitions at once needs about 3.1 GiB of host memory, more than the 1.0 GiB of PROOFLANE_HOST_MEMORY=1GiB",
		"prove", "--pipeline", "../../pipelines/plonk.yaml", "--circuit", "chain", "--size", "2^18",
		"--partitions", "2", "--out", t.TempDir(), "--keys", keysDir, "--progress", "off")
	checkRefused(t, keysDir, "size 262144 with the key setup needs about 2.1 GiB of host memory, more than the 1.0 GiB of PROOFLANE_HOST_MEMORY=1GiB",
		"setup", "--pipeline", "../../pipelines/plonk.yaml", "--circuit", "chain", "--size", "2^18", "--keys", keysDir)
}

// A PLONK run whose SRS and device steps cannot fit a device (an
// artificially small PROOFLANE_DEVICE_MEMORY) stops before the key is set
// up, naming the estimate, its parts, the limit and the setting to
// change; under a large enough limit it runs and says the estimate.
func TestAPlonkRunAboveTheDeviceMemoryLimitStopsBeforeItStarts(t *testing.T) {
	keysDir := t.TempDir()
	checkDeviceLimit(t, keysDir, []string{"prove", "--pipeline", "../../pipelines/plonk.yaml", "--circuit", "chain", "--size", "2^8",
		"--partitions", "2", "--set", "device_streams=2", "--out", t.TempDir(), "--keys", keysDir, "--progress", "off"}, "1MiB",
		"prooflane prove: size 256 with 2 partition(s) on a device needs about 1.7 MiB of device memory (the kzg srs of a domain of 512 96.3 KiB, 2 device step(s) at once 1.6 MiB), "+
			"more than the 1 MiB of device 0 (PROOFLANE_DEVICE_MEMORY=1MiB): fewer device steps at once (device_streams is 2: --set device_streams=1) or a smaller --size, or PROOFLANE_SKIP_MEMCHECK=1 to try anyway",
		"prooflane prove: size 256 with 2 partition(s) on a device: about 1.7 MiB of device memory, of 2.0 GiB on device 0 (PROOFLANE_DEVICE_MEMORY=2GiB)")
}
