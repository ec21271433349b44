package cpu_test

import (
	"testing"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
)

// The CPU backend's model says its emulated devices are host memory with
// nothing of the backend's on them but the chunks of host bases, and
// its factory opens as many devices as a run wants.
func TestTheCPUBackendsModelHoldsNothingOfItsOwn(t *testing.T) {
	be, err := device.NewRegistry().MustRegister(cpu.Factory()).Open("cpu", 3, nil)
	if err != nil || len(be.Devices()) != 3 {
		t.Fatalf("open cpu for 3 devices: %v", err)
	}
	m := be.Memory()
	if m.OwnMemory() || m.Context() != 0 || m.MSMWindow(1<<24) != 0 || m.TableWindow(1<<24) != 0 ||
		m.MSMScratch(device.G2, 1<<24, 20, false) != 0 || m.AffineScratch(device.G2, 1<<20) != 0 {
		t.Errorf("cpu model %+v holds something of its own", m)
	}
	dev, _ := cdev.Of(be, 0)
	if got, want := m.HostChunk(), dev.(cdev.HostBases).HostChunk(); got != want {
		t.Errorf("model's host chunk %d, the devices' %d", got, want)
	}
}
