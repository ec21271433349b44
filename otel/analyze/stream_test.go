package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// outputs renders a report in every format.
func outputs(t testing.TB, r *Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for ext, write := range map[string]func(*bytes.Buffer) error{
		"txt":      func(b *bytes.Buffer) error { return r.WriteText(b) },
		"json":     func(b *bytes.Buffer) error { return r.WriteJSON(b) },
		"html":     func(b *bytes.Buffer) error { return r.WriteHTML(b, "t") },
		"perfetto": func(b *bytes.Buffer) error { return r.WritePerfetto(b) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		out[ext] = buf.String()
	}
	return out
}

// AnalyzeFile reads a file span by span in the file's order, yet reports
// what Analyze does of the spans Load returns sorted by start time: here
// on files whose spans are shuffled, so that first-of and last-of choices
// (stage order, the slowest job, the first failure, a resource's device,
// the timeline) and equal start times all depend on the sorting.
func TestAnalyzeFileReportsWhatAnalyzeDoesOfLoadsSpans(t *testing.T) {
	gen, _ := generated(t, 2000)
	genSpans, err := tracefile.Read(gen)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := []string{gen, "../tracefile/testdata/old-format.jsonl", "../tracefile/testdata/jaeger.json", "testdata/sim-groth16-run.jsonl"}
	for i, spans := range [][]tracefile.Span{genSpans, smallTrace(), failedTrace(), kernelTrace()} {
		spans = slices.Clone(spans)
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		rng.Shuffle(len(spans), func(a, b int) { spans[a], spans[b] = spans[b], spans[a] })
		for j := range spans { // equal starts, in shuffled order
			if j%3 == 0 {
				spans[j].Start = spans[j].Start.Truncate(10 * time.Millisecond)
			}
		}
		if i == 0 {
			// A resource whose holds record different devices: the last
			// by start time says.
			for j := range spans {
				if spans[j].Str("prooflane.resource") == "cpu_bandwidth" && spans[j].Str("prooflane.kind") == "lock_hold" {
					spans[j].Attrs = maps.Clone(spans[j].Attrs)
					spans[j].Attrs["prooflane.resource_device"] = int64(j%3 - 1)
				}
			}
		}
		if i == 1 {
			// Resources that differ, so that the HTML header shows which
			// span is first, and a span without a start (the zero time).
			for j := range spans {
				spans[j].Resource = map[string]any{"service.name": "prooflane", "prooflane.line": int64(j)}
			}
			spans[len(spans)-1].Start = time.Time{} // last in the file
		}
		files = append(files, writeJSONL(t, spans))
		if i == 0 {
			path := filepath.Join(dir, "shuffled-"+strconv.Itoa(i)+".jsonl")
			var buf bytes.Buffer
			if err := tracefile.Write(&buf, spans); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, path)
		}
	}
	for _, path := range files {
		for _, opts := range []Options{{}, {TimelineSpans: 40}} {
			tr, err := tracefile.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Analyze(tr.Spans, opts)
			if err != nil {
				t.Fatal(err)
			}
			want.Warnings = append(tr.Warnings, want.Warnings...)
			got, err := AnalyzeFile(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			g, w := outputs(t, got), outputs(t, want)
			for ext := range w {
				if g[ext] != w[ext] {
					t.Errorf("%s, %+v: AnalyzeFile's %s differs from Analyze's of Load's spans", path, opts, ext)
				}
			}
		}
	}
}

// Past Options.TimelineSpans the timeline keeps the spans that start
// first: the HTML page and the Perfetto file draw the trace's first
// stretch, every span that starts in it and nothing after, and say so;
// the tables still cover every span.
func TestPartialTimelineDrawsTheTraceStartWhole(t *testing.T) {
	path, truth := generated(t, 2000)
	spans, err := tracefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := AnalyzeFile(path, Options{TimelineSpans: 300})
	if err != nil {
		t.Fatal(err)
	}
	tl := r.Timeline()
	end := r.Start.Add(tl.Window)
	in := 0
	for i := range spans {
		if spans[i].Start.Before(end) {
			in++
		}
	}
	if !tl.Partial() || tl.Total != truth.Spans || tl.Shown != in || tl.Shown > 300 || tl.Shown < 200 || r.Spans != truth.Spans {
		t.Fatalf("timeline %+v: want at most 300 of %d spans, the %d that start in its window", tl, truth.Spans, in)
	}
	k := &r.t.timeline
	if kept := len(k.jobs) + len(k.parts) + len(k.stages) + len(k.kerns) + len(k.waits) + len(k.holds); kept != tl.Shown {
		t.Errorf("the timeline keeps %d spans, says %d", kept, tl.Shown)
	}
	for _, tr := range tracks(r.t) {
		for _, lane := range tr.Lanes {
			for _, s := range lane {
				if !s.Start.Before(end) {
					t.Fatalf("track %q draws %q at +%v, after the window", tr.Name, s.Name, s.Start.Sub(r.Start))
				}
			}
		}
	}
	out := outputs(t, r)
	note := r.timelineNote()
	if !strings.Contains(note, fmt.Sprintf("the %d spans that start in it, of %d", tl.Shown, tl.Total)) ||
		!strings.Contains(out["html"], template.HTMLEscapeString(note)) || !strings.Contains(out["perfetto"], `"otherData":{"note":`) {
		t.Errorf("note %q missing from the HTML page or the Perfetto file", note)
	}
	var doc struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(out["perfetto"]), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range doc.TraceEvents {
		if e.Ts*1e3 >= float64(tl.Window) {
			t.Fatalf("perfetto event %+v after the window's end, +%v", e, tl.Window)
		}
	}
	// Bars stay inside the plot: the axis is the window, not the makespan.
	for _, m := range regexp.MustCompile(`<rect class="[^"]*" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"`).FindAllStringSubmatch(out["html"], -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		w, _ := strconv.ParseFloat(m[2], 64)
		if x+w > labelW+plotW+0.5 {
			t.Fatalf("bar at x %v, width %v, past the plot's end %v", x, w, labelW+plotW)
		}
	}
	full, err := AnalyzeFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := outputs(t, full); f["json"] != out["json"] || f["txt"] != out["txt"] || full.Timeline().Partial() || strings.Contains(f["html"], "the timeline shows") {
		t.Error("the bound on the timeline changed the figures, or a whole timeline says it is partial")
	}
}
