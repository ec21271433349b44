package tracefile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// line is one span of the JSON-lines format prooflane wrote before OTLP
// JSON (read, no longer written); its field order is the documented one.
type line struct {
	TraceID       string         `json:"trace_id"`
	SpanID        string         `json:"span_id"`
	ParentSpanID  string         `json:"parent_span_id"`
	Name          string         `json:"name"`
	Start         time.Time      `json:"start"`
	End           time.Time      `json:"end"`
	DurationMS    float64        `json:"duration_ms"`
	Status        string         `json:"status"`
	StatusMessage string         `json:"status_message"`
	Attributes    map[string]any `json:"attributes"`
	Events        []lineEvent    `json:"events"`
	Resource      map[string]any `json:"resource"`
}

type lineEvent struct {
	Name       string         `json:"name"`
	Time       time.Time      `json:"time"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Exporter is an sdktrace.SpanExporter writing OTLP JSON lines: one
// ExportTraceServiceRequest per batch of spans, one per line.
type Exporter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	file   *os.File // nil when the caller owns the writer
	name   string
	closed bool
	err    error // the first write error: the file is incomplete from there on
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// NewExporter returns an exporter writing to w; Shutdown flushes but does
// not close w.
func NewExporter(w io.Writer) *Exporter {
	return &Exporter{w: bufio.NewWriterSize(w, 64<<10), name: "trace writer"}
}

// Create creates (or truncates) the file at path and returns an exporter
// writing to it; Shutdown syncs and closes the file. The file is written
// in place as batches end, so a run that is killed leaves the lines
// written so far (Load reads them, warning about a torn last line).
func Create(path string) (*Exporter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace file: %w", err)
	}
	return &Exporter{w: bufio.NewWriterSize(f, 64<<10), file: f, name: path}, nil
}

// Name is the file the exporter writes ("trace writer" for NewExporter).
func (e *Exporter) Name() string { return e.name }

// ExportSpans writes the batch as one line and flushes it. After a write
// error every call returns that error: the file is incomplete.
func (e *Exporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return fmt.Errorf("trace file %q: exporter shut down", e.name)
	}
	if e.err != nil {
		return e.err
	}
	if len(spans) == 0 {
		return nil
	}
	b, err := MarshalRequest(fromSDK(spans))
	if err != nil {
		return fmt.Errorf("trace file %q: encoding %d spans: %w", e.name, len(spans), err)
	}
	if _, err := e.w.Write(append(b, '\n')); err != nil {
		e.err = fmt.Errorf("trace file %q: %w", e.name, err)
		return e.err
	}
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("trace file %q: %w", e.name, err)
		return e.err
	}
	return nil
}

// Shutdown flushes and, for Create, syncs and closes the file. It returns
// the first write error, if any. Later calls do nothing.
func (e *Exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	err := e.err
	if err == nil {
		if ferr := e.w.Flush(); ferr != nil {
			err = fmt.Errorf("trace file %q: %w", e.name, ferr)
		}
	}
	if e.file != nil {
		if err == nil {
			if st, serr := e.file.Stat(); serr == nil && st.Mode().IsRegular() {
				if serr := e.file.Sync(); serr != nil {
					err = fmt.Errorf("trace file %q: %w", e.name, serr)
				}
			}
		}
		if cerr := e.file.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("trace file %q: %w", e.name, cerr)
		}
	}
	return err
}

func attrValue(v attribute.Value) any {
	switch v.Type() {
	case attribute.BOOL:
		return v.AsBool()
	case attribute.INT64:
		return v.AsInt64()
	case attribute.FLOAT64:
		return v.AsFloat64()
	case attribute.STRING:
		return v.AsString()
	case attribute.BOOLSLICE:
		return v.AsBoolSlice()
	case attribute.INT64SLICE:
		return v.AsInt64Slice()
	case attribute.FLOAT64SLICE:
		return v.AsFloat64Slice()
	case attribute.STRINGSLICE:
		return v.AsStringSlice()
	}
	return v.Emit()
}

// FromSDK converts finished SDK spans (for example from a
// tracetest.SpanRecorder) into Spans, as writing and reading them back
// would.
func FromSDK(spans []sdktrace.ReadOnlySpan) []Span {
	return spansOf(fromSDK(spans))
}

// writeChunk is how many spans Write puts on one line.
const writeChunk = 1000

// Write writes spans as OTLP JSON lines (a request per line of at most
// 1000 spans, grouped by resource). Ids must be hex of the right length.
func Write(w io.Writer, spans []Span) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < len(spans); i += writeChunk {
		req, err := requestOf(spans[i:min(i+writeChunk, len(spans))])
		if err != nil {
			return err
		}
		b, err := MarshalRequest(req)
		if err != nil {
			return err
		}
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return bw.Flush()
}
