package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/proving"
	"github.com/prooflane/prooflane/runtime"

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
// PLONK's device stages
// are its commitments and the quotient's kernels: busy.
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
	want := []string{"groth16.gpu_compute", "plonk.batch_open", "plonk.commit_lro", "plonk.commit_z", "plonk.open", "plonk.quotient"}
	if !slices.Equal(busy, want) {
		t.Errorf("busy types %v, want %v", busy, want)
	}
}

// Every shipped proof family's name is a prefix of shipped stage types, and
// the shipped Groth16 pipeline belongs to it with epilogue as its proof.
func TestShippedFamiliesOwnShippedStageTypes(t *testing.T) {
	fams, reg := Families(), Registry()
	for _, name := range fams.Names() {
		n := 0
		for _, typ := range reg.Types() {
			if strings.HasPrefix(typ, name+".") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("family %q has no stage types", name)
		}
	}
	file, src, err := pipelines.Open("groth16")
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Parse(file, src, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := proving.Resolve(p, fams)
	if err != nil {
		t.Fatal(err)
	}
	if pp.Family.Name() != "groth16" || pp.Final != "epilogue" || !pp.Verified {
		t.Errorf("family %q, proof stage %q (verified %v); want groth16, epilogue, verified", pp.Family.Name(), pp.Final, pp.Verified)
	}
}
