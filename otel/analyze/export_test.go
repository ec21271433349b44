package analyze

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
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
