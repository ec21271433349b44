package tracefile

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
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
	_, err := Parse("t.jsonl", []byte(src+"\n{}\n"))
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
	want := "groth16.yaml:1: not a trace file: want OTLP JSON lines (trace.jsonl), prooflane's older JSON lines or a Jaeger JSON export"
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

// Spans written by the exporter (and by Write) read back as they were
// recorded: ids, parent, times to the nanosecond, status, attributes of
// every type, events and the resource.
func TestOTLPFileRoundTripsSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	res := resource.NewSchemaless(attribute.String("service.name", "prooflane"), attribute.Int("prooflane.size", 4096))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
	ctx, job := tp.Tracer("t").Start(context.Background(), "job groth16", trace.WithAttributes(attribute.String("prooflane.kind", "job")))
	_, st := tp.Tracer("t").Start(ctx, "prep_msm", trace.WithAttributes(
		attribute.String("prooflane.kind", "stage"), attribute.Int("prooflane.partition", 3), attribute.Float64("prooflane.wait_ms", 1.25),
		attribute.Bool("b", true), attribute.StringSlice("prooflane.locks", []string{"gpu.0.mem", "cpu"}),
		attribute.Int64Slice("ints", []int64{1, 2})))
	st.AddEvent("exception", trace.WithAttributes(attribute.String("exception.message", "out of memory")))
	st.SetStatus(codes.Error, "out of memory")
	st.End()
	job.End()
	want := FromSDK(rec.Ended())
	if len(want) != 2 || want[0].ParentID != want[1].SpanID || want[0].Status != StatusError {
		t.Fatalf("FromSDK = %+v", want)
	}

	var buf bytes.Buffer
	exp := NewExporter(&buf)
	if err := exp.ExportSpans(context.Background(), rec.Ended()); err != nil {
		t.Fatal(err)
	}
	if err := exp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 || !strings.HasPrefix(buf.String(), `{"resourceSpans":[`) {
		t.Fatalf("exporter wrote %d lines: %s", n, buf.String())
	}
	if !strings.Contains(buf.String(), `"traceId":"`+want[0].TraceID+`"`) {
		t.Errorf("trace id not written as hex: %s", buf.String())
	}
	got, err := Parse("t.jsonl", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sortByName := func(s []Span) { sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name }) }
	sortByName(got)
	sortByName(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exporter round trip:\n got %+v\nwant %+v", got, want)
	}

	var w strings.Builder
	if err := Write(&w, want); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("w.jsonl", []byte(w.String()))
	if err != nil {
		t.Fatal(err)
	}
	sortByName(back)
	if !reflect.DeepEqual(back, want) {
		t.Errorf("Write round trip:\n got %+v\nwant %+v", back, want)
	}
}

// A write that fails (a full disk) is returned by the export and again by
// Shutdown, naming the file.
func TestExporterReportsAFailedWrite(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, s := tp.Tracer("t").Start(context.Background(), "x")
	s.End()
	exp := NewExporter(failingWriter{})
	exp.name = "out/trace.jsonl"
	if err := exp.ExportSpans(context.Background(), rec.Ended()); err == nil || !strings.Contains(err.Error(), `trace file "out/trace.jsonl": no space left on device`) {
		t.Errorf("export: %v", err)
	}
	if err := exp.Shutdown(context.Background()); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("shutdown: %v", err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		exp, err := Create("/dev/full")
		if err != nil {
			t.Fatal(err)
		}
		exp.ExportSpans(context.Background(), rec.Ended())
		if err := exp.Shutdown(context.Background()); err == nil || !strings.Contains(err.Error(), `trace file "/dev/full"`) {
			t.Errorf("/dev/full: shutdown: %v", err)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A run cut off while writing leaves a torn last line: the lines before it
// are read, with a warning naming the line. A bad line in the middle is
// still an error.
func TestTornLastLineIsReadUpToItWithAWarning(t *testing.T) {
	good := `{"trace_id":"a","span_id":"1","name":"x","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z"}`
	for _, src := range []string{good + "\n" + good + "\n" + `{"trace_id":"a","spa`, good + "\n" + good + "\n" + `{"trace_id":"a","spa` + "\n\n"} {
		tr, err := load("t.jsonl", strings.NewReader(src), true)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Spans) != 2 || len(tr.Warnings) != 1 || !strings.HasPrefix(tr.Warnings[0], "t.jsonl:3: last line is incomplete") {
			t.Errorf("%d spans, warnings %q; want 2 and one naming line 3", len(tr.Spans), tr.Warnings)
		}
	}
	if _, err := load("t.jsonl", strings.NewReader(good+"\n"+`{"trace_id":"a","spa`+"\n"+good+"\n"), true); err == nil || !strings.HasPrefix(err.Error(), "t.jsonl:2: ") {
		t.Errorf("a torn line in the middle: err = %v, want one at t.jsonl:2", err)
	}
}

// Reads are capped: a stream of zeros fails at once, a line above the line
// limit names the limit, and so does a file above the size limit.
func TestTraceReadsAreCapped(t *testing.T) {
	_, err := load("/dev/zero", io.LimitReader(zeros{}, 1<<30), true)
	if err == nil || !strings.Contains(err.Error(), "not a trace file") {
		t.Errorf("zeros: err = %v", err)
	}
	long := io.MultiReader(strings.NewReader(`{"span_id":"`), io.LimitReader(repeat('a'), MaxLineSize+10))
	_, err = load("long.jsonl", long, true)
	if err == nil || !strings.Contains(err.Error(), "long.jsonl:1: line longer than 64 MiB, the limit on a trace line") {
		t.Errorf("long line: err = %v", err)
	}
	// Many short lines past the file limit (lowered here from 1 GiB, so
	// the test reads 2 MiB, not a gigabyte): the limit is named, and the
	// rest of the stream is not read.
	defer func(old int64) { maxFileSize = old }(maxFileSize)
	maxFileSize = 2 << 20
	line := `{"trace_id":"a","span_id":"1","name":"x","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z"}` + "\n"
	_, err = load("big.jsonl", strings.NewReader(strings.Repeat(line, 3<<20/len(line))), true)
	if err == nil || !strings.Contains(err.Error(), "big.jsonl: more than 2 MiB, the limit on a trace file") {
		t.Errorf("big file: err = %v", err)
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 3<<20/len(line))), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "bytes, above the 2 MiB limit on a trace file") {
		t.Errorf("big regular file: err = %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// A trace in the JSON-lines format prooflane wrote before OTLP JSON
// (testdata/old-format.jsonl: `run` of a two-partition sim pipeline) still
// reads.
func TestOldJSONLinesFormatStillReads(t *testing.T) {
	tr, err := Load("testdata/old-format.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, s := range tr.Spans {
		kinds[s.Str("prooflane.kind")]++
	}
	if len(tr.Spans) != 11 || kinds["job"] != 1 || kinds["partition"] != 2 || kinds["stage"] != 6 || len(tr.Warnings) != 0 {
		t.Errorf("%d spans by kind %v, warnings %q; want 11 with 1 job, 2 partitions, 6 stages", len(tr.Spans), kinds, tr.Warnings)
	}
}

// Scan, which keeps one line, reads JSON lines past Load's limit, up to
// its own; a Jaeger export, read whole, stays under Load's.
func TestScanReadsPastLoadsLimit(t *testing.T) {
	defer func(file, scan int64) { maxFileSize, maxScanSize = file, scan }(maxFileSize, maxScanSize)
	maxFileSize, maxScanSize = 1<<20, 3<<20
	line := `{"trace_id":"a","span_id":"1","name":"x","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z"}` + "\n"
	dir := t.TempDir()
	write := func(name string, size int) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Repeat(line, size/len(line))), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	mid, big := write("mid.jsonl", 2<<20), write("big.jsonl", 4<<20)
	n := 0
	if _, err := Scan(mid, func(*Span) error { n++; return nil }); err != nil || n != 2<<20/len(line) {
		t.Errorf("Scan of 2 MiB: %d spans, %v", n, err)
	}
	if _, err := Load(mid); err == nil || !strings.Contains(err.Error(), "above the 1 MiB limit on a trace file") {
		t.Errorf("Load of 2 MiB: %v", err)
	}
	if _, err := Scan(big, func(*Span) error { return nil }); err == nil || !strings.Contains(err.Error(), "above the 3 MiB limit on a trace file") {
		t.Errorf("Scan of 4 MiB: %v", err)
	}
	jaeger := filepath.Join(dir, "jaeger.json")
	doc := `{"data": [{"traceID": "t", "spans": [], "processes": {}, "pad": "` + strings.Repeat("x", 2<<20) + `"}]}`
	if err := os.WriteFile(jaeger, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(jaeger, func(*Span) error { return nil }); err == nil || !strings.Contains(err.Error(), "more than 1 MiB, the limit on a trace that is one JSON document") {
		t.Errorf("Scan of a 2 MiB Jaeger export: %v", err)
	}
}
