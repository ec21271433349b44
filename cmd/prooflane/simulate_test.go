package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// dualWorker is simPipeline with two compute workers and a device stage
// before compute, so it differs in layout but has the same stage names.
const dualWorker = `pipeline: sim-dual
params: {partitions: 4}
devices: 1
resources:
  cpu: {capacity: 2}
  gpu.{gpu}.compute: {}
stages:
  synthesize: {type: sim.sleep, workers: 2, locks: [cpu], config: {duration: 20ms}}
  gpu_compute: {type: sim.device, needs: [synthesize], workers: 2, locks: ["gpu.{gpu}.compute"], config: {duration: 15ms, busy: true}}
  epilogue: {type: sim.sleep, needs: [gpu_compute], workers: 2, config: {duration: 5ms}}
`

func TestSimulateCommandPrintsRecordedAndPredicted(t *testing.T) {
	trace := recordTrace(t, simPipeline, 1)
	dir := t.TempDir()
	newPipeline := filepath.Join(dir, "dual.yaml")
	if err := os.WriteFile(newPipeline, []byte(dualWorker), 0o644); err != nil {
		t.Fatal(err)
	}
	simTrace := filepath.Join(dir, "sim.jsonl")
	var stdout, stderr bytes.Buffer
	args := []string{"simulate", "--from", trace, "--pipeline", newPipeline, "--speed", "5", "--set", "partitions=3", "--trace-file", simTrace, "-v"}
	if rc := mainRC(args, &stdout, &stderr); rc != 0 {
		t.Fatalf("rc %d: %s", rc, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{`(pipeline "sim-dual")`, "1 job(s) × 3 partitions", "makespan (s)", "proofs/min", "gpu 0 busy",
		"stage synthesize: 4 recorded runs", "simulated run:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	spans, err := tracefile.Read(simTrace)
	if err != nil {
		t.Fatal(err)
	}
	stagesRun := 0
	for _, s := range spans {
		if s.Str("prooflane.kind") == "stage" {
			stagesRun++
		}
	}
	if stagesRun != 9 {
		t.Errorf("simulated trace has %d stage spans, want 3 partitions × 3 stages", stagesRun)
	}
}

func TestSimulateCommandErrors(t *testing.T) {
	trace := recordTrace(t, simPipeline, 1)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no trace", []string{"simulate", "--pipeline", "x.yaml"}, "want --from TRACE and --pipeline PIPELINE"},
		{"bad speed", []string{"simulate", "--from", trace, "--pipeline", "x.yaml", "--speed", "0"}, "--speed 0: want a factor between 0.001 and 1e6"},
		// NaN used to pass the check and hang the replay.
		{"NaN speed", []string{"simulate", "--from", trace, "--pipeline", "x.yaml", "--speed", "NaN"}, "--speed NaN: want a factor between 0.001 and 1e6"},
		{"infinite speed", []string{"simulate", "--from", trace, "--pipeline", "x.yaml", "--speed", "Inf"}, "--speed +Inf: want a factor between 0.001 and 1e6"},
		{"bad set", []string{"simulate", "--set", "novalue"}, `want name=value, got "novalue"`},
		{"missing pipeline", []string{"simulate", "--from", trace, "--pipeline", filepath.Join(t.TempDir(), "nope.yaml")}, "nope.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if rc := mainRC(tc.args, &stdout, &stderr); rc == 0 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("rc %d, stderr %q; want failure with %q", rc, stderr.String(), tc.want)
			}
		})
	}
}

// predictionTolerance is how far `prooflane simulate` may be from the real
// run whose trace it replays through the same layout: 25% of the
// makespan. Tries: a busy machine can stretch a replay's sleeps too.
const (
	predictionTolerance = 0.25
	predictionTries     = 3
)

// proveTrace proves a small Groth16 job on the CPU backend and returns its
// trace file and makespan.
func proveTrace(t *testing.T, pipeline, keys string) (string, float64) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"prove", "--pipeline", pipeline, "--circuit", "chain", "--size", "2^11", "--partitions", "4",
		"--keys", keys, "--out", out, "--progress", "off"}
	if rc := mainRC(args, &stdout, &stderr); rc != 0 {
		t.Fatalf("prove: rc %d\n%s", rc, stderr.String())
	}
	path := filepath.Join(out, "trace.jsonl")
	spans, err := tracefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var first, last = spans[0].Start, spans[0].End
	for _, s := range spans {
		if s.Start.Before(first) {
			first = s.Start
		}
		if s.End.After(last) {
			last = s.End
		}
	}
	return path, last.Sub(first).Seconds()
}

func TestSimulatePredictsARealCPUBackendRun(t *testing.T) {
	if testing.Short() {
		t.Skip("proves Groth16 jobs on the CPU")
	}
	pipeline := filepath.Join("..", "..", "pipelines", "groth16.yaml")
	keys := t.TempDir()
	var misses []string
	// The prediction replays the recorded run's stage durations through the
	// same layout, so it is compared with that run itself: a second run
	// would add the machine's load swings between runs (CI runs other
	// packages' tests beside this one) to what is measured.
	for range predictionTries {
		recorded, real := proveTrace(t, pipeline, keys)
		var stdout, stderr bytes.Buffer
		if rc := mainRC([]string{"simulate", "--from", recorded, "--pipeline", pipeline, "--speed", "2"}, &stdout, &stderr); rc != 0 {
			t.Fatalf("simulate: rc %d\n%s", rc, stderr.String())
		}
		var rec, pred float64
		for _, l := range strings.Split(stdout.String(), "\n") {
			if f := strings.Fields(l); len(f) == 4 && f[0] == "makespan" {
				fmt.Sscan(f[2], &rec)
				fmt.Sscan(f[3], &pred)
			}
		}
		if pred <= 0 {
			t.Fatalf("no predicted makespan in:\n%s", stdout.String())
		}
		off := math.Abs(pred-real) / real
		t.Logf("real run %.3fs (simulate read %.3fs from its trace), predicted %.3fs: off by %.0f%%", real, rec, pred, 100*off)
		if off <= predictionTolerance {
			return
		}
		misses = append(misses, fmt.Sprintf("predicted %.3fs, real %.3fs (%.0f%% off)", pred, real, 100*off))
	}
	t.Errorf("prediction outside %.0f%% on every try:\n%s", 100*predictionTolerance, strings.Join(misses, "\n"))
}
