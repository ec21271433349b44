package tracefile

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// Status values of a span.
const (
	StatusUnset = "unset"
	StatusOK    = "ok"
	StatusError = "error"
)

// Span is one span, from either format.
type Span struct {
	TraceID       string
	SpanID        string
	ParentID      string // "" for a root span
	Name          string
	Start, End    time.Time
	Status        string // StatusOK, StatusError or StatusUnset
	StatusMessage string
	// Attrs holds attribute values as string, bool, int64, float64 or
	// []any of those.
	Attrs    map[string]any
	Events   []Event
	Resource map[string]any
}

// Event is a timed annotation on a span (a Jaeger log).
type Event struct {
	Name  string
	Time  time.Time
	Attrs map[string]any
}

// Duration is End - Start.
func (s *Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// Str returns a string attribute, or "" when absent. Numbers are
// formatted.
func (s *Span) Str(key string) string {
	switch v := s.Attrs[key].(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// Int returns an integer attribute; ok is false when it is absent or not a
// whole number.
func (s *Span) Int(key string) (n int64, ok bool) {
	switch v := s.Attrs[key].(type) {
	case int64:
		return v, true
	case float64:
		if v == math.Trunc(v) {
			return int64(v), true
		}
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// IntOr returns an integer attribute or def.
func (s *Span) IntOr(key string, def int64) int64 {
	if n, ok := s.Int(key); ok {
		return n
	}
	return def
}

// Float returns a numeric attribute; ok is false when it is absent or not a
// number.
func (s *Span) Float(key string) (f float64, ok bool) {
	switch v := s.Attrs[key].(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

// Strings returns a string-slice attribute. A single string is a slice of
// one; a string holding a JSON array (Jaeger's encoding of array
// attributes) is decoded.
func (s *Span) Strings(key string) []string {
	switch v := s.Attrs[key].(type) {
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	case []string:
		return v
	case string:
		if len(v) > 0 && v[0] == '[' {
			var out []string
			if json.Unmarshal([]byte(v), &out) == nil {
				return out
			}
		}
		if v == "" {
			return nil
		}
		return []string{v}
	}
	return nil
}

// normalize turns decoded JSON values (json.Number, nested arrays) into
// the types Span documents.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return x
	}
	return v
}

func normalizeMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	for k, v := range m {
		m[k] = normalize(v)
	}
	return m
}
