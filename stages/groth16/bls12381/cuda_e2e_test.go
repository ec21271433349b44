//go:build cuda

package groth16_test

import (
	"context"
	"path/filepath"
	"testing"

	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/runtime"
)

// TestCUDAShippedPipelinesProveAndGnarkVerifies is the end-to-end test on
// the CUDA backend: the same pipelines, stages and checks as on the CPU.
func TestCUDAShippedPipelinesProveAndGnarkVerifies(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA backend: %v", err)
	}
	defer be.Close()
	const partitions = 3
	type run struct {
		file   string
		params map[string]string
	}
	var runs []run
	for _, file := range shippedPipelines(t) {
		runs = append(runs, run{file, nil})
	}
	// The G2 MSM on the host cores (the shipped files run it on the device).
	runs = append(runs, run{"../../../pipelines/groth16.yaml", map[string]string{"g2_on": "cpu"}})
	for _, r := range runs {
		file := r.file
		for _, circuit := range []string{"chain", "sha256", "mimc"} {
			name := filepath.Base(file) + "/" + circuit
			if r.params != nil {
				name += "/g2_on=cpu"
			}
			t.Run(name, func(t *testing.T) {
				set := setupKeys(t, circuit, 1<<10)
				job, err := set.NewJob(partitions, 1)
				if err != nil {
					t.Fatal(err)
				}
				p, err := runtime.Load(file, registry(t), r.params)
				if err != nil {
					t.Fatal(err)
				}
				e, err := runtime.NewEngine(p, runtime.Options{Devices: len(be.Devices()), Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Run(context.Background(), runtime.Job{ID: circuit, Partitions: partitions, Payload: job})
				if err != nil {
					t.Fatal(err)
				}
				for i, proof := range proofs(t, res) {
					if err := job.Verify(i, proof); err != nil {
						t.Errorf("partition %d: %v", i, err)
					}
				}
			})
		}
	}
}
