//go:build cuda

package plonk_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/frontend"

	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
)

// TestCUDAShippedPipelinesProveAndGnarkVerifies is the end-to-end test on
// the CUDA backend: both PLONK layouts, the three circuits, every proof
// checked by gnark's plonk.Verify.
func TestCUDAShippedPipelinesProveAndGnarkVerifies(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	defer be.Close()
	const partitions = 3
	for _, pipeline := range []string{"plonk", "plonk-single-lock"} {
		for _, c := range []struct {
			circuit string
			size    int
		}{{"chain", 1 << 12}, {"mimc", 1 << 10}, {"sha256", 2000}} {
			t.Run(pipeline+"/"+c.circuit, func(t *testing.T) {
				kd := keyOf(t, c.circuit, c.size)
				ws := witnesses(t, kd.inst, partitions, 3, -1)
				job, err := plonk.NewJob(kd.key, ws)
				if err != nil {
					t.Fatal(err)
				}
				file, src, err := pipelines.Open(pipeline)
				if err != nil {
					t.Fatal(err)
				}
				p, err := runtime.Parse(file, src, builtin.Registry(), nil)
				if err != nil {
					t.Fatal(err)
				}
				e, err := runtime.NewEngine(p, runtime.Options{Devices: 1, Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Run(context.Background(), runtime.Job{ID: c.circuit, Partitions: partitions, Payload: job})
				if cerr := e.Close(context.Background()); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res.Partitions {
					proof, ok := r.Outputs["batch_open"].(*gplonk.Proof)
					if !ok {
						t.Fatalf("partition %d: output %T", r.Index, r.Outputs["batch_open"])
					}
					if err := verify(t, kd.key, ws[r.Index], proof); err != nil {
						t.Errorf("partition %d: gnark's plonk.Verify: %v", r.Index, err)
					}
				}
			})
		}
	}
}

// TestCUDACommittingCircuitsProveAndGnarkVerifies proves the circuits of
// the standard gadgets that commit (BSB22: std/rangecheck,
// std/lookup/logderivlookup, std/math/emulated, and a product of 64
// factors in BN254's base field, a domain of 2^16) on the CUDA backend,
// both layouts, three partitions a job, every proof checked by gnark's
// plonk.Verify.
func TestCUDACommittingCircuitsProveAndGnarkVerifies(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	defer be.Close()
	const partitions = 3
	cases := append(slices.Clone(gadgets), gadget{"emulated-64", "std/math/emulated",
		func() frontend.Circuit { return newEmulated(64) },
		func(r *rand.Rand) frontend.Circuit { return assignEmulated(r, 64) }})
	for _, pipeline := range []string{"plonk", "plonk-single-lock"} {
		for _, g := range cases {
			t.Run(pipeline+"/"+g.name, func(t *testing.T) {
				k := gadgetKey(t, g.name, g.new())
				if k.Commitments() == 0 {
					t.Fatalf("the %s circuit makes no commitment", g.uses)
				}
				ws := gadgetWitnesses(t, g.assign, partitions, 17)
				job, err := plonk.NewJob(k, ws)
				if err != nil {
					t.Fatal(err)
				}
				file, src, err := pipelines.Open(pipeline)
				if err != nil {
					t.Fatal(err)
				}
				p, err := runtime.Parse(file, src, builtin.Registry(), nil)
				if err != nil {
					t.Fatal(err)
				}
				e, err := runtime.NewEngine(p, runtime.Options{Devices: 1, Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Run(context.Background(), runtime.Job{ID: g.name, Partitions: partitions, Payload: job})
				if cerr := e.Close(context.Background()); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res.Partitions {
					proof, ok := r.Outputs["batch_open"].(*gplonk.Proof)
					if !ok {
						t.Fatalf("partition %d: output %T", r.Index, r.Outputs["batch_open"])
					}
					if len(proof.Bsb22Commitments) != k.Commitments() {
						t.Errorf("partition %d: %d commitments, want %d", r.Index, len(proof.Bsb22Commitments), k.Commitments())
					}
					if err := verify(t, k, ws[r.Index], proof); err != nil {
						t.Errorf("partition %d: gnark's plonk.Verify: %v", r.Index, err)
					}
				}
			})
		}
	}
}
