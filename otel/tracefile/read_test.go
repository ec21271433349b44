package tracefile

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadJaegerJSONNormalisesToSpans(t *testing.T) {
	spans, err := Read("testdata/jaeger.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	job, st := spans[0], spans[1]
	if job.Name != "job groth16" || job.ParentID != "" || job.IntOr("prooflane.partitions", 0) != 2 {
		t.Errorf("job span = %+v", job)
	}
	if _, ok := job.Attrs["span.kind"]; ok {
		t.Error("jaeger-internal tag span.kind kept as an attribute")
	}
	if job.Status != StatusUnset {
		t.Errorf("job status %q, want unset", job.Status)
	}
	if want := time.UnixMicro(1_000_000).UTC(); !job.Start.Equal(want) || job.Duration() != 500*time.Millisecond {
		t.Errorf("job interval %v + %v", job.Start, job.Duration())
	}
	if st.ParentID != "j1" || st.Status != StatusError || st.StatusMessage != "out of memory" {
		t.Errorf("stage span parent %q status %q %q", st.ParentID, st.Status, st.StatusMessage)
	}
	if got := st.Strings("prooflane.locks"); !reflect.DeepEqual(got, []string{"gpu.0.compute", "gpu.0.mem"}) {
		t.Errorf("locks = %q", got)
	}
	if f, ok := st.Float("prooflane.wait_ms"); !ok || f != 12.5 {
		t.Errorf("wait_ms = %v %v", f, ok)
	}
	if len(st.Events) != 1 || st.Events[0].Name != "exception" || st.Events[0].Attrs["exception.message"] != "out of memory" {
		t.Errorf("events = %+v", st.Events)
	}
	if st.Resource["service.name"] != "prooflane" || st.Resource["prooflane.backend"] != "cpu" {
		t.Errorf("resource = %v", st.Resource)
	}
}

func TestParseLinesReportsLineNumbers(t *testing.T) {
	src := `{"trace_id":"a","span_id":"1","name":"x","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z","status":"ok","attributes":{"n":3,"f":1.5,"l":["a"]}}

{"trace_id":"a","span_id":"2",`
	_, err := Parse("t.jsonl", []byte(src))
	if err == nil || !strings.HasPrefix(err.Error(), "t.jsonl:3: ") {
		t.Fatalf("err = %v, want one at t.jsonl:3", err)
	}
	spans, err := Parse("t.jsonl", []byte(strings.SplitN(src, "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	s := spans[0]
	if n, ok := s.Int("n"); !ok || n != 3 {
		t.Errorf("n = %v", s.Attrs["n"])
	}
	if f, _ := s.Float("f"); f != 1.5 {
		t.Errorf("f = %v", s.Attrs["f"])
	}
	if s.Duration() != time.Second || s.Status != StatusOK {
		t.Errorf("duration %v status %q", s.Duration(), s.Status)
	}
}

// A pipeline file or other non-JSON passed as a trace says what a trace is.
func TestParseOfANonTraceFileSaysWhatATraceIs(t *testing.T) {
	_, err := Parse("groth16.yaml", []byte("pipeline: groth16\nstages: {}\n"))
	want := "groth16.yaml:1: not a trace file: want prooflane's JSON lines (trace.jsonl) or a Jaeger JSON export"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want prefix %q", err, want)
	}
}

func TestParseRejectsSpanWithoutID(t *testing.T) {
	_, err := Parse("t.jsonl", []byte(`{"name":"x"}`))
	if err == nil || !strings.Contains(err.Error(), `t.jsonl:1: span has no "span_id"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteThenParseRoundTrips(t *testing.T) {
	spans, err := Read("testdata/jaeger.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := Write(&buf, spans); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("w.jsonl", []byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, spans) {
		t.Errorf("round trip changed spans:\n got %+v\nwant %+v", back, spans)
	}
}
