package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/tracegen"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
)

// simPipeline is a Groth16-shaped pipeline of sim stages: CPU synthesis,
// one device lock around the compute stage, a CPU epilogue.
const simPipeline = `pipeline: sim-test
params: {partitions: 4}
devices: 1
resources:
  cpu: {capacity: 2}
  gpu.{gpu}.compute: {}
stages:
  synthesize: {type: sim.sleep, workers: 2, locks: [cpu], config: {duration: 20ms}}
  gpu_compute: {type: sim.device, needs: [synthesize], locks: ["gpu.{gpu}.compute"], config: {duration: 15ms, busy: true}}
  epilogue: {type: sim.sleep, needs: [gpu_compute], config: {duration: 5ms}}
`

// recordTrace runs jobs of a pipeline with the JSON-lines exporter and
// returns the trace file's path.
func recordTrace(t *testing.T, yaml string, jobs int) string {
	t.Helper()
	dir := t.TempDir()
	p, err := runtime.Parse(filepath.Join(dir, "p.yaml"), []byte(yaml), builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "trace.jsonl")
	prov, err := otel.Setup(context.Background(), otel.Config{File: path})
	if err != nil {
		t.Fatal(err)
	}
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: prov.TracerProvider()})
	if err != nil {
		t.Fatal(err)
	}
	for range jobs {
		if _, err := e.Run(context.Background(), runtime.Job{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := prov.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAnalyzeCommandReportsARecordedRun(t *testing.T) {
	trace := recordTrace(t, simPipeline, 1)
	dir := t.TempDir()
	html, perfetto := filepath.Join(dir, "r.html"), filepath.Join(dir, "p.json")
	var stdout, stderr bytes.Buffer
	if rc := mainRC([]string{"analyze", "--html", html, "--perfetto", perfetto, trace}, &stdout, &stderr); rc != 0 {
		t.Fatalf("rc %d: %s", rc, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"1 jobs (0 failed), 4 partitions", "synthesize", "gpu_compute", "gpu.0.compute",
		`devices (busy = stage runs declared to keep their device busy (prooflane.device_busy))`, "device 0: busy", "critical path of the slowest job"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(page, []byte("<svg")) {
		t.Errorf("html report: %v", err)
	}
	raw, err := os.ReadFile(perfetto)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.TraceEvents) == 0 {
		t.Errorf("perfetto file: %v, %d events", err, len(doc.TraceEvents))
	}
}

func TestAnalyzeCommandErrors(t *testing.T) {
	dir := t.TempDir()
	notProoflane := filepath.Join(dir, "other.jsonl")
	os.WriteFile(notProoflane, []byte(`{"trace_id":"a","span_id":"1","name":"GET /","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z"}`+"\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no trace", []string{"analyze"}, "want one trace file, got 0 arguments"},
		{"missing file", []string{"analyze", filepath.Join(dir, "nope.jsonl")}, "no such file"},
		{"foreign trace", []string{"analyze", notProoflane}, "no prooflane job or stage spans"},
		// Reads are capped: /dev/zero is refused at once instead of
		// growing past gigabytes.
		{"dev zero", []string{"analyze", "/dev/zero"}, "/dev/zero:1: not a trace file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if rc := mainRC(tc.args, &stdout, &stderr); rc == 0 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("rc %d, stderr %q; want failure with %q", rc, stderr.String(), tc.want)
			}
		})
	}
}

// A trace whose last line was cut off is analysed up to it, with a
// warning naming the line.
func TestAnalyzeReadsATornTraceWithAWarning(t *testing.T) {
	trace := recordTrace(t, `
pipeline: torn
params: {partitions: 2}
stages:
  a: {type: sim.sleep, config: {duration: 1ms}}
`, 1)
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// The run was cut off while writing one more batch after these.
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	last := lines[len(lines)-1]
	if err := os.WriteFile(trace, append(b, last[:len(last)/2]...), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, out, stderr := prooflane(t, "analyze", trace)
	want := fmt.Sprintf("%s:%d: last line is incomplete", trace, len(lines)+1)
	if rc != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and a warning %q", rc, out, stderr, want)
	}
}

// The command prints, for a recorded run, the report the analyze package's
// golden files hold, in text and JSON, and writes the HTML and Perfetto
// files they hold.
func TestAnalyzeCommandOutputMatchesGolden(t *testing.T) {
	const trace = "../../otel/analyze/testdata/sim-groth16-run.jsonl"
	golden := func(ext string) string {
		b, err := os.ReadFile("../../otel/analyze/testdata/golden/file-sim-groth16-run." + ext)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dir := t.TempDir()
	html, perfetto := filepath.Join(dir, "r.html"), filepath.Join(dir, "p.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", trace}, golden("txt")},
		{[]string{"analyze", "--json", trace}, golden("json")},
	} {
		if rc, out, stderr := prooflane(t, tc.args...); rc != 0 || out != tc.want {
			t.Errorf("%q: exit %d, stderr %q, stdout differs from the golden file:\n%s", tc.args, rc, stderr, out)
		}
	}
	if rc, _, stderr := prooflane(t, "analyze", "-q", "--html", html, "--perfetto", perfetto, trace); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	for path, ext := range map[string]string{html: "html", perfetto: "perfetto.json"} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := golden(ext)
		if ext == "html" { // the golden page's title names the golden case
			want = strings.Replace(want, "golden file-sim-groth16-run", "prooflane trace sim-groth16-run.jsonl", -1)
		}
		if string(got) != want {
			t.Errorf("%s differs from the golden file", ext)
		}
	}
}

// --timeline-spans bounds what --html and --perfetto draw, and the
// command says when the timeline leaves spans out.
func TestAnalyzeTimelineSpansFlag(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "gen.jsonl")
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, tracegen.Config{Spans: 1000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	rc, _, stderr := prooflane(t, "analyze", "-q", "--html", html, "--timeline-spans", "100", trace)
	if rc != 0 || !strings.Contains(stderr, "prooflane analyze: the timeline draws the first ") || !strings.Contains(stderr, "--timeline-spans 1") {
		t.Errorf("exit %d, stderr %q; want a note that the timeline is partial", rc, stderr)
	}
	rc, _, stderr = prooflane(t, "analyze", "-q", "--html", html, trace)
	if rc != 0 || strings.Contains(stderr, "the timeline draws") {
		t.Errorf("exit %d, stderr %q; want no note under the default bound", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, "analyze", "--timeline-spans", "0", trace); rc != 2 || !strings.Contains(stderr, "--timeline-spans 0: want at least 1") {
		t.Errorf("exit %d, stderr %q; want 2 and the flag named", rc, stderr)
	}
}
