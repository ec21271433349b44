package groth16_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"golang.org/x/sync/errgroup"

	"github.com/prooflane/prooflane/device"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	"github.com/prooflane/prooflane/stages/stagetest"
)

func registry(t testing.TB) *stages.Registry {
	t.Helper()
	reg := stages.NewRegistry()
	if err := reg.Register(groth16.Factories()...); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestFactoriesPassTheLifecycleCheck(t *testing.T) {
	stagetest.CheckFactories(t, registry(t))
}

// shippedPipelines returns pipelines/groth16*.yaml.
func shippedPipelines(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../../pipelines/groth16*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) < 4 {
		t.Fatalf("found %d groth16 pipelines, want the 4 shipped ones: %v", len(files), files)
	}
	return files
}

func loadPipeline(t testing.TB, file string, params map[string]string, be device.Backend) *runtime.Engine {
	t.Helper()
	p, err := runtime.Load(file, registry(t), params)
	if err != nil {
		t.Fatal(err)
	}
	e, err := runtime.NewEngine(p, runtime.Options{Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// proofs returns the epilogue output of every partition, by index.
func proofs(t testing.TB, res *runtime.Result) []*g16.Proof {
	t.Helper()
	out := make([]*g16.Proof, len(res.Partitions))
	for _, pr := range res.Partitions {
		p, ok := pr.Outputs["epilogue"].(*g16.Proof)
		if !ok {
			t.Fatalf("partition %d: epilogue output is %T", pr.Index, pr.Outputs["epilogue"])
		}
		out[pr.Index] = p
	}
	return out
}

func TestEveryShippedPipelineProvesEveryCircuitAndGnarkVerifies(t *testing.T) {
	const partitions = 3
	for _, file := range shippedPipelines(t) {
		for _, circuit := range []string{"chain", "sha256", "mimc"} {
			t.Run(filepath.Base(file)+"/"+circuit, func(t *testing.T) {
				set := setupKeys(t, circuit, 1<<8)
				be := cpuBackend(t, 2)
				job, err := set.NewJob(partitions, 1)
				if err != nil {
					t.Fatal(err)
				}
				p, err := runtime.Load(file, registry(t), nil)
				if err != nil {
					t.Fatal(err)
				}
				rec := stagetest.NewRecorder()
				e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 2, Backend: be})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Run(context.Background(), runtime.Job{ID: circuit, Partitions: partitions, Payload: job})
				if err != nil {
					t.Fatal(err)
				}
				ps := proofs(t, res)
				if len(ps) != partitions {
					t.Fatalf("%d proofs, want %d", len(ps), partitions)
				}
				for i, proof := range ps {
					if err := job.Verify(i, proof); err != nil {
						t.Errorf("partition %d: %v", i, err)
					}
				}
				kernels := map[string]int{}
				for _, iv := range rec.Intervals(pl.KindKernel) {
					kernels[iv.Name]++
				}
				for _, k := range []string{"ntt_h", "msm_a", "msm_b1", "msm_k", "msm_h", "batch_add"} {
					if kernels[k] != partitions {
						t.Errorf("%d %q kernel spans, want %d", kernels[k], k, partitions)
					}
				}
			})
		}
	}
}

func TestUnsatisfiedWitnessFailsTheJobNamingPartitionAndConstraint(t *testing.T) {
	set := setupKeys(t, "mimc", 1<<8)
	ws, err := set.Witnesses(3, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := set.Witnesses(3, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	ws[2] = bad[2]
	be := cpuBackend(t, 1)
	job, err := groth16.NewJob(set.Circuit, set.R1CS, set.PK, set.VK, ws)
	if err != nil {
		t.Fatal(err)
	}
	e := loadPipeline(t, "../../../pipelines/groth16.yaml", nil, be)
	_, err = e.Run(context.Background(), runtime.Job{ID: "bad", Partitions: 3, Payload: job})
	var se *runtime.StageError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a *runtime.StageError", err, err)
	}
	if se.Partition != 2 || se.Stage != "synthesize" {
		t.Errorf("failed at stage %q partition %d, want synthesize partition 2", se.Stage, se.Partition)
	}
	for _, want := range []string{`partition 2`, `synthesize`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if !regexp.MustCompile(`constraint #\d+ is not satisfied`).MatchString(err.Error()) {
		t.Errorf("error %q does not name the failing constraint", err)
	}
}

// Jobs in flight at once on one engine and one backend share the resident
// bases of their key set and keep apart those of another key set of the
// same circuit and size, with the G2 MSM on the devices too: every proof
// of every job verifies with its own keys.
func TestConcurrentJobsOfTwoKeySetsOnOneBackendEachProveWithTheirOwnBases(t *testing.T) {
	const partitions = 2
	a := setupKeys(t, "chain", 1<<8)
	b, err := keys.Setup("chain", 1<<8) // same circuit and size, other keys
	if err != nil {
		t.Fatal(err)
	}
	be := cpuBackend(t, 2)
	p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"g2_on": "device"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := runtime.NewEngine(p, runtime.Options{Devices: 2, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []*groth16.Job
	for i, set := range []*keys.Set{a, b, a, b} {
		j, err := set.NewJob(partitions, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	results := make([]*runtime.Result, len(jobs))
	var g errgroup.Group
	for i, j := range jobs {
		g.Go(func() (err error) {
			results[i], err = e.Run(context.Background(), runtime.Job{ID: fmt.Sprint("job-", i), Partitions: partitions, Payload: j})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		for p, proof := range proofs(t, res) {
			if err := jobs[i].Verify(p, proof); err != nil {
				t.Errorf("job %d partition %d: %v", i, p, err)
			}
		}
	}
}

// The backend is the engine's, not the job's: an engine given none cannot
// start the device stages, and says which stage and what to give it.
func TestEngineWithoutABackendFailsToStartNamingTheStage(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	job, err := set.NewJob(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := loadPipeline(t, "../../../pipelines/groth16.yaml", nil, nil)
	_, err = e.Run(context.Background(), runtime.Job{Payload: job})
	want := `stage "prep_msm" (groth16.prep_msm): start: no device backend: the engine lends its stages one (runtime.Options.Backend)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run: %v, want %q", err, want)
	}
}
