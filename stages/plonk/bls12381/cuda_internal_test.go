//go:build cuda

package plonk

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend/witness"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

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
	cu, cb := backends(t)
	for _, size := range []int{3, 100, 1 << 11} { // the smallest domains (8n) and 4n ones
		spr, inst, err := Compile("chain", size)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workloads.Witness(inst.Assignment(5))
		if err != nil {
			t.Fatal(err)
		}
		quotientOnBoth(t, fmt.Sprintf("chain %d", size), spr, w, cu, cb)
	}
}

// rangeChecked range-checks each of Vals to 20 bits (std/rangecheck),
// which commits.
type rangeChecked struct{ Vals [1024]frontend.Variable }

func (c *rangeChecked) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	for _, v := range c.Vals {
		rc.Check(v, 20)
	}
	return nil
}

// TestCUDAQuotientWithCommitmentsEqualsTheCPUReference is the quotient
// step's comparison for circuits with a BSB22 commitment (api.Commit
// directly, and std/rangecheck): the commitments' terms of the gate
// constraint and their polynomials' canonical form as well.
func TestCUDAQuotientWithCommitmentsEqualsTheCPUReference(t *testing.T) {
	cu, cb := backends(t)
	var rc rangeChecked
	for i := range rc.Vals {
		rc.Vals[i] = i * 1021
	}
	for _, c := range []struct {
		name        string
		circuit, as frontend.Circuit
	}{
		{"api.Commit", &committed{}, committedInstance{}.Assignment(4)},
		{"std/rangecheck", &rangeChecked{}, &rc},
	} {
		spr, err := CompileCircuit(c.name, c.circuit)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workloads.Witness(c.as)
		if err != nil {
			t.Fatal(err)
		}
		quotientOnBoth(t, c.name, spr, w, cu, cb)
	}
}

// backends opens the CUDA backend (skipping without one) and a CPU one.
func backends(t *testing.T) (cu, cb device.Backend) {
	t.Helper()
	cu, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	t.Cleanup(func() { cu.Close() })
	if cb, err = cpu.New(1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cb.Close() })
	return cu, cb
}

// quotientOnBoth sets spr up, solves w, and runs the quotient's numerator
// on cu and on cb from the same state; h and every canonical form must be
// the same.
func quotientOnBoth(t *testing.T, name string, spr *cs.SparseR1CS, w witness.Witness, cu, cb device.Backend) {
	t.Helper()
	k, err := UnsafeSetup(context.Background(), name, spr)
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
	if len(want.pi2c) != k.Commitments() || len(got.pi2c) != k.Commitments() {
		t.Fatalf("%s: %d and %d commitments' polynomials, want %d", name, len(want.pi2c), len(got.pi2c), k.Commitments())
	}
	polys := []struct {
		name      string
		want, got []fr.Element
	}{{"h", want.h, got.h}, {"l", want.lc, got.lc}, {"r", want.rc, got.rc}, {"o", want.oc, got.oc}, {"z", want.zc, got.zc}}
	for i := range want.pi2c {
		polys = append(polys, struct {
			name      string
			want, got []fr.Element
		}{fmt.Sprintf("pi2 %d", i), want.pi2c[i], got.pi2c[i]})
	}
	for _, p := range polys {
		if !slices.Equal(p.want, p.got) {
			t.Errorf("%s: %s differs between the CUDA and CPU backends", name, p.name)
		}
	}
}
