package tracefile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// line is one JSON line; its field order is the documented one.
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

// Exporter is an sdktrace.SpanExporter writing the JSON-lines format.
type Exporter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	closer io.Closer // nil when the caller owns the writer
	name   string
	closed bool
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// NewExporter returns an exporter writing to w; Shutdown flushes but does
// not close w.
func NewExporter(w io.Writer) *Exporter {
	return &Exporter{w: bufio.NewWriterSize(w, 64<<10), name: "trace writer"}
}

// Create creates (or truncates) the file at path and returns an exporter
// writing to it; Shutdown closes the file.
func Create(path string) (*Exporter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace file: %w", err)
	}
	return &Exporter{w: bufio.NewWriterSize(f, 64<<10), closer: f, name: path}, nil
}

// ExportSpans writes one line per span and flushes the batch.
func (e *Exporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return fmt.Errorf("trace file %q: exporter shut down", e.name)
	}
	enc := json.NewEncoder(e.w)
	enc.SetEscapeHTML(false)
	for _, s := range spans {
		if err := enc.Encode(toLine(s)); err != nil {
			return fmt.Errorf("trace file %q: span %q: %w", e.name, s.Name(), err)
		}
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("trace file %q: %w", e.name, err)
	}
	return nil
}

// Shutdown flushes and, for Create, closes the file. Later calls do
// nothing.
func (e *Exporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	err := e.w.Flush()
	if e.closer != nil {
		err = errors.Join(err, e.closer.Close())
	}
	if err != nil {
		return fmt.Errorf("trace file %q: %w", e.name, err)
	}
	return nil
}

func toLine(s sdktrace.ReadOnlySpan) line {
	sc := s.SpanContext()
	l := line{
		TraceID:       sc.TraceID().String(),
		SpanID:        sc.SpanID().String(),
		Name:          s.Name(),
		Start:         s.StartTime().UTC(),
		End:           s.EndTime().UTC(),
		DurationMS:    float64(s.EndTime().Sub(s.StartTime())) / float64(time.Millisecond),
		Status:        statusName(s.Status().Code),
		StatusMessage: s.Status().Description,
		Attributes:    attrMap(s.Attributes()),
		Events:        []lineEvent{},
		Resource:      map[string]any{},
	}
	if p := s.Parent(); p.IsValid() {
		l.ParentSpanID = p.SpanID().String()
	}
	for _, ev := range s.Events() {
		le := lineEvent{Name: ev.Name, Time: ev.Time.UTC()}
		if len(ev.Attributes) > 0 {
			le.Attributes = attrMap(ev.Attributes)
		}
		l.Events = append(l.Events, le)
	}
	if r := s.Resource(); r != nil {
		l.Resource = attrMap(r.Attributes())
	}
	return l
}

func statusName(c codes.Code) string {
	switch c {
	case codes.Ok:
		return StatusOK
	case codes.Error:
		return StatusError
	}
	return StatusUnset
}

func attrMap(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = attrValue(kv.Value)
	}
	return m
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
	out := make([]Span, 0, len(spans))
	for _, ro := range spans {
		l := toLine(ro)
		s := Span{
			TraceID: l.TraceID, SpanID: l.SpanID, ParentID: l.ParentSpanID, Name: l.Name,
			Start: l.Start, End: l.End, Status: l.Status, StatusMessage: l.StatusMessage,
			Attrs: sliceAny(l.Attributes), Resource: sliceAny(l.Resource),
		}
		for _, ev := range l.Events {
			s.Events = append(s.Events, Event{Name: ev.Name, Time: ev.Time, Attrs: sliceAny(ev.Attributes)})
		}
		out = append(out, s)
	}
	return out
}

// sliceAny turns typed slices into []any, the type Span documents.
func sliceAny(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	for k, v := range m {
		switch x := v.(type) {
		case []string:
			m[k] = toAny(x)
		case []int64:
			m[k] = toAny(x)
		case []float64:
			m[k] = toAny(x)
		case []bool:
			m[k] = toAny(x)
		}
	}
	return m
}

func toAny[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// Write writes spans in the JSON-lines format, one per line.
func Write(w io.Writer, spans []Span) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, s := range spans {
		l := line{
			TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentID, Name: s.Name,
			Start: s.Start.UTC(), End: s.End.UTC(), DurationMS: float64(s.Duration()) / float64(time.Millisecond),
			Status: s.Status, StatusMessage: s.StatusMessage, Attributes: s.Attrs, Events: []lineEvent{}, Resource: s.Resource,
		}
		for _, ev := range s.Events {
			l.Events = append(l.Events, lineEvent{Name: ev.Name, Time: ev.Time.UTC(), Attributes: ev.Attrs})
		}
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("span %q: %w", s.Name, err)
		}
	}
	return bw.Flush()
}
