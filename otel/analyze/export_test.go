package analyze

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

func TestWriteHTMLIsSelfContainedAndShowsEveryTrack(t *testing.T) {
	r, err := Analyze(twoLockTrace(false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf, "two locks"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"<svg", ">gpu.0.mem<", ">wait gpu.0.mem<", ">gpu 0 busy 39%<", "load · gpu 0 · w0",
		`class="wait"`, "data-tip=\"load\n&#43;40ms for 20ms", "never held at the same time", "<h2>Resources</h2>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://", "<script src", "<link"} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page refers outside itself: %q", bad)
		}
	}
}

func TestWritePerfettoEmitsCompleteEventsPerLane(t *testing.T) {
	r, err := Analyze(smallTrace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WritePerfetto(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	type lane struct{ pid, tid int }
	last := map[lane]float64{}
	x := 0
	var gpuBusyUS float64
	sort.SliceStable(doc.TraceEvents, func(i, j int) bool { return doc.TraceEvents[i].Ts < doc.TraceEvents[j].Ts })
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		x++
		l := lane{e.Pid, e.Tid}
		if e.Ts < last[l]-1e-6 {
			t.Errorf("event %q at %vµs overlaps the previous one of its lane (ends %vµs)", e.Name, e.Ts, last[l])
		}
		last[l] = e.Ts + e.Dur
		if e.Name == "busy" {
			gpuBusyUS += e.Dur
		}
	}
	// 1 busy interval + 2 gaps, 3 cpu holds... at least every stage run
	// and wait once on a worker track plus lock tracks.
	if x < 6+1 {
		t.Errorf("%d complete events", x)
	}
	if gpuBusyUS != 60_000 {
		t.Errorf("busy events sum to %vµs, want 60000", gpuBusyUS)
	}
}

// hold adds a lock_hold span.
func (b *builder) hold(p *tracefile.Span, stage, resource string, capacity int64, from, to, waitMS float64) *tracefile.Span {
	return b.add(p, "hold "+resource, from, to, map[string]any{
		string(pl.KeyKind): pl.KindLockHold, string(pl.KeyJob): p.Attrs[string(pl.KeyJob)],
		string(pl.KeyPartition): p.Attrs[string(pl.KeyPartition)], string(pl.KeyStage): stage,
		string(pl.KeyResource): resource, string(pl.KeyWeight): int64(1), string(pl.KeyCapacity): capacity,
		string(pl.KeyWaitMS): waitMS})
}

// A span lock held from upload to compute with a gap between the two
// stages: the figures, the timeline lanes and the Perfetto counter all
// count the gap, because they read the lock_hold spans.
func TestSpanLockHoldsCountTheTimeBetweenStages(t *testing.T) {
	b := &builder{spans: make([]tracefile.Span, 0, 32)}
	j := b.job("j1", 0, 100, 2)
	for i, off := range []float64{0, 10} {
		p := b.partition(j, i, off, off+90)
		b.stage(p, "upload", "t.upload", 0, off+10, off+20, 0, "gpu.0.mem")
		b.stage(p, "compute", "t.compute", 0, off+60, off+70, 0, "gpu.0.mem")
		b.hold(p, "upload", "gpu.0.mem", 2, off+10, off+70, 0)
	}
	r, err := Analyze(b.spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mem *ResourceStats
	for i := range r.Resources {
		if r.Resources[i].Name == "gpu.0.mem" {
			mem = &r.Resources[i]
		}
	}
	// Holds [10,70] and [20,80]: held 70 ms, 120 ms of holding, 2 at most.
	if mem == nil || mem.Holds != 2 || mem.Held != 70*ms || mem.MaxHolders != 2 || mem.MeanHolders != 120.0/70 || mem.Capacity != 2 {
		t.Fatalf("gpu.0.mem = %+v", mem)
	}
	for _, tr := range tracks(r.t) {
		if tr.Group == "locks" && tr.Name == "gpu.0.mem" {
			if len(tr.Lanes) != 2 || tr.Lanes[0][0].Duration() != 60*ms {
				t.Errorf("gpu.0.mem track: %d lanes, first bar %v; want 2 lanes of the 60 ms holds", len(tr.Lanes), tr.Lanes[0][0].Duration())
			}
		}
	}
	var buf bytes.Buffer
	if err := r.WritePerfetto(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var counts []any
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" && e.Name == "gpu.0.mem" {
			counts = append(counts, e.Args["holders"])
		}
	}
	if fmt.Sprint(counts) != "[1 2 1 0]" {
		t.Errorf("gpu.0.mem holder counter %v, want [1 2 1 0]", counts)
	}
}
