package main

import (
	"bytes"
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
  gpu_compute: {type: sim.device, needs: [synthesize], workers: 2, locks: ["gpu.{gpu}.compute"], config: {duration: 15ms}}
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
		{"no trace", []string{"simulate", "--pipeline", "x.yaml"}, "want --from TRACE and --pipeline NEW.yaml"},
		{"bad speed", []string{"simulate", "--from", trace, "--pipeline", "x.yaml", "--speed", "0"}, "--speed 0: want a positive factor"},
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
