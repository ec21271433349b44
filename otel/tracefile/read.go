package tracefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// Read reads a trace file: prooflane's JSON lines or Jaeger's JSON (see the
// package doc). Spans are returned sorted by start time.
func Read(path string) ([]Span, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return Parse(path, data)
}

// Parse is Read on bytes already in memory; name is used in errors.
func Parse(name string, data []byte) ([]Span, error) {
	var spans []Span
	var err error
	if isJaeger(data) {
		spans, err = parseJaeger(name, data)
	} else {
		spans, err = parseLines(name, bytes.NewReader(data))
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start.Before(spans[j].Start) })
	return spans, nil
}

// isJaeger reports whether data is one JSON document with a "data" member
// (Jaeger), rather than JSON lines.
func isJaeger(data []byte) bool {
	var probe struct {
		Data json.RawMessage `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&probe); err != nil || probe.Data == nil {
		return false
	}
	return !dec.More()
}

func parseLines(name string, r io.Reader) ([]Span, error) {
	var spans []Span
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l struct {
			line
			Events []struct {
				Name       string         `json:"name"`
				Time       time.Time      `json:"time"`
				Attributes map[string]any `json:"attributes"`
			} `json:"events"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&l); err != nil {
			if len(spans) == 0 && b[0] != '{' {
				return nil, fmt.Errorf("%s:%d: not a trace file: want prooflane's JSON lines (trace.jsonl) or a Jaeger JSON export (%w)", name, n, err)
			}
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if l.SpanID == "" {
			return nil, fmt.Errorf("%s:%d: span has no \"span_id\"", name, n)
		}
		s := Span{
			TraceID:       l.TraceID,
			SpanID:        l.SpanID,
			ParentID:      l.ParentSpanID,
			Name:          l.Name,
			Start:         l.Start,
			End:           l.End,
			Status:        l.Status,
			StatusMessage: l.StatusMessage,
			Attrs:         normalizeMap(l.Attributes),
			Resource:      normalizeMap(l.Resource),
		}
		if s.Status == "" {
			s.Status = StatusUnset
		}
		for _, ev := range l.Events {
			s.Events = append(s.Events, Event{Name: ev.Name, Time: ev.Time, Attrs: normalizeMap(ev.Attributes)})
		}
		spans = append(spans, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return spans, nil
}

type jaegerKV struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

type jaegerDoc struct {
	Data []struct {
		TraceID string `json:"traceID"`
		Spans   []struct {
			TraceID       string `json:"traceID"`
			SpanID        string `json:"spanID"`
			OperationName string `json:"operationName"`
			References    []struct {
				RefType string `json:"refType"`
				TraceID string `json:"traceID"`
				SpanID  string `json:"spanID"`
			} `json:"references"`
			StartTime int64      `json:"startTime"` // µs since the epoch
			Duration  int64      `json:"duration"`  // µs
			Tags      []jaegerKV `json:"tags"`
			Logs      []struct {
				Timestamp int64      `json:"timestamp"`
				Fields    []jaegerKV `json:"fields"`
			} `json:"logs"`
			ProcessID string `json:"processID"`
		} `json:"spans"`
		Processes map[string]struct {
			ServiceName string     `json:"serviceName"`
			Tags        []jaegerKV `json:"tags"`
		} `json:"processes"`
	} `json:"data"`
}

// Tags Jaeger adds to carry OpenTelemetry fields that have no Jaeger
// equivalent; they become Span fields, not attributes.
var jaegerInternal = map[string]bool{
	"otel.status_code": true, "otel.status_description": true, "error": true,
	"span.kind": true, "otel.scope.name": true, "otel.scope.version": true,
	"otel.library.name": true, "otel.library.version": true, "internal.span.format": true,
}

func parseJaeger(name string, data []byte) ([]Span, error) {
	var doc jaegerDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: jaeger json: %w", name, err)
	}
	var spans []Span
	for ti, tr := range doc.Data {
		for si, js := range tr.Spans {
			if js.SpanID == "" {
				return nil, fmt.Errorf("%s: data[%d].spans[%d]: span has no \"spanID\"", name, ti, si)
			}
			s := Span{
				TraceID:  js.TraceID,
				SpanID:   js.SpanID,
				Name:     js.OperationName,
				Start:    time.UnixMicro(js.StartTime).UTC(),
				End:      time.UnixMicro(js.StartTime + js.Duration).UTC(),
				Status:   StatusUnset,
				Attrs:    map[string]any{},
				Resource: map[string]any{},
			}
			if s.TraceID == "" {
				s.TraceID = tr.TraceID
			}
			for _, ref := range js.References {
				if ref.RefType == "CHILD_OF" || s.ParentID == "" {
					s.ParentID = ref.SpanID
				}
			}
			for _, kv := range js.Tags {
				v := jaegerValue(kv)
				switch kv.Key {
				case "otel.status_code":
					if str, _ := v.(string); strings.EqualFold(str, "error") {
						s.Status = StatusError
					} else if strings.EqualFold(str, "ok") {
						s.Status = StatusOK
					}
				case "otel.status_description":
					s.StatusMessage, _ = v.(string)
				case "error":
					if b, _ := v.(bool); b {
						s.Status = StatusError
					}
				}
				if !jaegerInternal[kv.Key] {
					s.Attrs[kv.Key] = v
				}
			}
			for _, lg := range js.Logs {
				ev := Event{Time: time.UnixMicro(lg.Timestamp).UTC(), Attrs: map[string]any{}}
				for _, f := range lg.Fields {
					if f.Key == "event" {
						ev.Name, _ = jaegerValue(f).(string)
						continue
					}
					ev.Attrs[f.Key] = jaegerValue(f)
				}
				s.Events = append(s.Events, ev)
			}
			if p, ok := tr.Processes[js.ProcessID]; ok {
				s.Resource["service.name"] = p.ServiceName
				for _, kv := range p.Tags {
					s.Resource[kv.Key] = jaegerValue(kv)
				}
			}
			spans = append(spans, s)
		}
	}
	return spans, nil
}

// jaegerValue converts a tag value; string tags holding a JSON array (how
// Jaeger stores array attributes) are decoded into []any.
func jaegerValue(kv jaegerKV) any {
	v := normalize(kv.Value)
	switch kv.Type {
	case "int64":
		if f, ok := v.(float64); ok {
			return int64(f)
		}
	case "float64":
		if n, ok := v.(int64); ok {
			return float64(n)
		}
	case "string", "":
		if str, ok := v.(string); ok && len(str) > 1 && str[0] == '[' && str[len(str)-1] == ']' {
			dec := json.NewDecoder(strings.NewReader(str))
			dec.UseNumber()
			var arr []any
			if dec.Decode(&arr) == nil {
				return normalize(arr)
			}
		}
	}
	return v
}
