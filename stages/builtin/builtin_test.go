package builtin

import (
	"testing"

	"github.com/prooflane/prooflane/stages/stagetest"
)

func TestEveryShippedStageTypePassesTheLifecycleCheck(t *testing.T) {
	reg := Registry()
	if len(reg.Types()) < 9 {
		t.Fatalf("only %d stage types registered: %v", len(reg.Types()), reg.Types())
	}
	stagetest.CheckFactories(t, reg)
}

// Which shipped types keep their device busy is declared on the type:
// Groth16's kernels stage does, its upload does not; a type declared busy
// always runs on a device (a busy stage off any device does not load).
func TestShippedTypesDeclareWhichKeepTheDeviceBusy(t *testing.T) {
	reg := Registry()
	var busy []string
	for _, typ := range reg.Types() {
		f, _ := reg.Lookup(typ)
		if f.Busy {
			busy = append(busy, typ)
			if !f.Device {
				t.Errorf("%s is declared busy but is not a device type", typ)
			}
		}
	}
	if len(busy) != 1 || busy[0] != "groth16.gpu_compute" {
		t.Errorf("busy types %v, want [groth16.gpu_compute]", busy)
	}
}
