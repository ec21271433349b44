//go:build cuda

package plonk

import (
	"context"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/workloads"
)

type testHost struct{ be device.Backend }

func (h testHost) Backend() device.Backend { return h.be }
func (h testHost) Devices() int            { return 1 }

// TestCUDAQuotientEqualsTheCPUReference runs the quotient step (NTTs and
// the element-wise numerator) of one partition's state on the CUDA
// backend and on the CPU backend and wants the same h and canonical L, R,
// O, Z, element for element.
func TestCUDAQuotientEqualsTheCPUReference(t *testing.T) {
	cu, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	defer cu.Close()
	cb, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	for _, size := range []int{3, 100, 1 << 11} { // the smallest domains (8n) and 4n ones
		spr, inst, err := Compile("chain", size)
		if err != nil {
			t.Fatal(err)
		}
		k, err := UnsafeSetup(context.Background(), "chain", spr)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workloads.Witness(inst.Assignment(5))
		if err != nil {
			t.Fatal(err)
		}
		job, err := NewJob(k, []witness.Witness{w})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		in := stages.NewInput(nil)
		in.Job, in.Partition, in.Device, in.Stage = job, 0, 0, "test"
		out, err := solve{}.Run(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		st := out.(*State)
		// Challenges and Z as the pipeline would have them.
		for _, e := range []*fr.Element{&st.gamma, &st.beta, &st.alpha} {
			e.SetRandom()
		}
		in = stages.NewInput(map[stages.DataType]any{TypeLRO: st})
		in.Job = job
		if _, err := (ratio{}).Run(ctx, in); err != nil {
			t.Fatal(err)
		}
		run := func(be device.Backend) *State {
			c := *st
			q := &quotient{onDevice{typ: TypeNameQuotient}}
			if err := q.Start(ctx, testHost{be}); err != nil {
				t.Fatal(err)
			}
			in := stages.NewInput(nil)
			in.Device, in.Stage = 0, "quotient"
			if err := q.run(in, func(w *work) error { return q.numerator(ctx, w, &c) }); err != nil {
				t.Fatal(err)
			}
			return &c
		}
		want, got := run(cb), run(cu)
		for _, p := range []struct {
			name      string
			want, got []fr.Element
		}{{"h", want.h, got.h}, {"l", want.lc, got.lc}, {"r", want.rc, got.rc}, {"o", want.oc, got.oc}, {"z", want.zc, got.zc}} {
			if !slices.Equal(p.want, p.got) {
				t.Errorf("size %d: %s differs between the CUDA and CPU backends", size, p.name)
			}
		}
	}
}
