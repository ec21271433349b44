package tracefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

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
