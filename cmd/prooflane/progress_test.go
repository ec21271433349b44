package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/runtime"
)

func TestProgressLineShowsPartitionsStageActivityAndETA(t *testing.T) {
	p, err := loadPipeline("../../pipelines/sim-groth16.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	pr := startProgress(&out, p, 4, true)
	for _, ev := range []runtime.Event{
		{Kind: runtime.StageStarted, Stage: "synthesize"},
		{Kind: runtime.StageDone, Stage: "synthesize"},
		{Kind: runtime.StageStarted, Stage: "gpu_compute"},
		{Kind: runtime.StageStarted, Stage: "prep_msm"},
		{Kind: runtime.StageStarted, Stage: "prep_msm"},
		{Kind: runtime.StageRetry, Stage: "vram_stage"},
		{Kind: runtime.PartitionDone},
	} {
		pr.Event(ev)
	}
	line := pr.line()
	pr.Stop()
	for _, want := range []string{"partitions 1/4", "prep_msm 2, gpu_compute 1", "ETA ", "1 retries"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "synthesize") {
		t.Errorf("progress line %q lists a stage with nothing running", line)
	}
}

func TestProgressIsOffWhenStderrIsNotATerminal(t *testing.T) {
	on, err := progressEnabled("auto", &bytes.Buffer{})
	if err != nil || on {
		t.Errorf("auto on a buffer: %v, %v; want off", on, err)
	}
	if _, err := progressEnabled("sometimes", &bytes.Buffer{}); err == nil {
		t.Error("a bad --progress value was accepted")
	}
	var nilProgress *progress // disabled: every method is a no-op
	nilProgress.Event(runtime.Event{Kind: runtime.PartitionDone})
	nilProgress.Stop()
}
