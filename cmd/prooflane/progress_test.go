package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

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

// --progress on into a pipe or a file used to write "\r\x1b[K" every
// 200 ms: it writes plain lines, seldom.
func TestProgressIntoAPipeWritesPlainLinesSeldom(t *testing.T) {
	p, err := loadPipeline("sim-groth16", nil)
	if err != nil {
		t.Fatal(err)
	}
	var w lockedBuffer
	pr := startProgress(&w, p, 4, true)
	if !pr.plain {
		t.Error("progress into a buffer is not plain")
	}
	pr.Stop()
	if w.String() != "" {
		t.Errorf("a run shorter than the interval wrote %q", w.String())
	}
	if plainEvery < time.Second {
		t.Errorf("plain lines every %v: a log would fill up", plainEvery)
	}
	// Fast, to see the lines without waiting.
	pr = newProgress(&w, p, 4, true, time.Millisecond)
	pr.Event(runtime.Event{Kind: runtime.PartitionDone})
	for strings.Count(w.String(), "\n") < 2 {
		time.Sleep(time.Millisecond)
	}
	pr.Stop()
	out := w.String()
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("plain progress has control codes: %q", out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.Contains(l, "partitions 1/4") {
			t.Errorf("line %q", l)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
