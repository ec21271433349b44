package analyze

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// A trace file is user input: whatever tracefile.Parse accepts, Analyze
// either refuses with an error or reports on, in every output format,
// without panicking or hanging.
func FuzzAnalyzeTraceFile(f *testing.F) {
	for _, path := range []string{writeJSONL(f, smallTrace()), writeJaeger(f, smallTrace()), "../tracefile/testdata/jaeger.json",
		"../tracefile/testdata/old-format.jsonl"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// The same run as OTLP JSON, the format prooflane writes now.
	old, err := tracefile.Read("../tracefile/testdata/old-format.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	var otlp bytes.Buffer
	if err := tracefile.Write(&otlp, old); err != nil {
		f.Fatal(err)
	}
	f.Add(otlp.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := tracefile.Parse("fuzz", data)
		if err != nil {
			return
		}
		r, err := Analyze(spans, Options{})
		if err != nil {
			return
		}
		if err := r.WriteText(io.Discard); err != nil {
			t.Errorf("WriteText: %v", err)
		}
		if err := r.WriteHTML(io.Discard, "fuzz"); err != nil {
			t.Errorf("WriteHTML: %v", err)
		}
		if err := r.WritePerfetto(io.Discard); err != nil {
			t.Errorf("WritePerfetto: %v", err)
		}
		if err := r.WriteJSON(io.Discard); err != nil {
			t.Errorf("WriteJSON: %v", err)
		}
	})
}

// Timestamps centuries apart (a clock bug, a hand-edited file) make the
// makespan the longest Duration; the HTML axis once looped forever there.
func TestReportOfATraceSpanningCenturiesEnds(t *testing.T) {
	spans := smallTrace()
	spans[0].Start = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	spans[len(spans)-1].End = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	done := make(chan error, 1)
	go func() {
		r, err := Analyze(spans, Options{})
		if err == nil {
			err = errors.Join(r.WriteText(io.Discard), r.WriteHTML(io.Discard, "centuries"), r.WritePerfetto(io.Discard))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the report of a trace spanning centuries did not finish in 2 minutes")
	}
}
