//go:build cuda

package groth16_test

import (
	"context"
	"testing"

	devcuda "github.com/prooflane/prooflane/device/cuda"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// TestCUDACommittingCircuitsProveAndGnarkVerifies proves circuits that
// commit on the CUDA backend through the recommended pipeline, with the
// key's bases on the device and on the host: the built-in emulated
// circuit at 2^14 (one commitment to some 12,000 wires: its MSM on the
// GPU) and the test circuits of every committing gadget with the
// threshold lowered so that their commitments' MSMs run on the GPU too.
// Every proof verifies with gnark's verifier; each partition ran an
// msm_commit kernel span a commitment and one msm_pok.
func TestCUDACommittingCircuitsProveAndGnarkVerifies(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	defer be.Close()
	defer groth16.CommitOnDeviceMin(groth16.CommitOnDeviceMin(1))
	const partitions = 3
	jobs := map[string]func(t *testing.T) *groth16.Job{
		"emulated-2^14": func(t *testing.T) *groth16.Job {
			job, err := setupKeys(t, "emulated", 1<<14).NewJob(partitions, 1)
			if err != nil {
				t.Fatal(err)
			}
			return job
		},
	}
	for _, c := range committingCircuits() {
		if c.name == "sha2" {
			continue // minutes of setup; the other gadgets cover its lookups
		}
		jobs[c.name] = func(t *testing.T) *groth16.Job { return committedJob(t, c, committedKeys(t, c), partitions, 7) }
	}
	for name, mk := range jobs {
		for _, bases := range []string{groth16.BasesDevice, groth16.BasesHost} {
			t.Run(name+"/bases="+bases, func(t *testing.T) {
				job := mk(t)
				p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"bases": bases})
				if err != nil {
					t.Fatal(err)
				}
				rec := stagetest.NewRecorder()
				e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: len(be.Devices()), Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close(context.Background())
				res, err := e.Run(context.Background(), runtime.Job{ID: name, Partitions: partitions, Payload: job})
				if err != nil {
					t.Fatal(err)
				}
				for i, proof := range proofs(t, res) {
					if err := verifyGnark(t, job, i, proof); err != nil {
						t.Errorf("partition %d: %v", i, err)
					}
				}
				kernels := map[string]int{}
				for _, iv := range rec.Intervals(pl.KindKernel) {
					kernels[iv.Name]++
				}
				if want := partitions * len(job.VK.CommitmentKeys); kernels["msm_commit"] != want {
					t.Errorf("%d msm_commit kernel spans, want %d (one a commitment)", kernels["msm_commit"], want)
				}
				if kernels["msm_pok"] != partitions {
					t.Errorf("%d msm_pok kernel spans, want %d", kernels["msm_pok"], partitions)
				}
			})
		}
	}
}
