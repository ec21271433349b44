package tracefile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// jsonRequest is what a Span holds of one OTLP JSON line, decoded straight
// from the line in one pass: several times faster than protojson through
// UnmarshalRequest, which only `trace send` needs (it replays whole
// requests). It reads the file encoding's lowerCamelCase field names and
// accepts what protojson accepts for the values: 64-bit integers as
// strings or numbers, doubles as numbers or strings ("NaN", "Infinity"),
// the status code as a number or its enum name (unset when unknown), bytes
// in either base64 alphabet. Ids are hex, as in UnmarshalRequest.
type jsonRequest struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []jsonKV `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []jsonSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type jsonSpan struct {
	TraceID      string     `json:"traceId"`
	SpanID       string     `json:"spanId"`
	ParentSpanID string     `json:"parentSpanId"`
	Name         string     `json:"name"`
	Start        jsonUint64 `json:"startTimeUnixNano"`
	End          jsonUint64 `json:"endTimeUnixNano"`
	Attributes   []jsonKV   `json:"attributes"`
	Events       []struct {
		Time       jsonUint64 `json:"timeUnixNano"`
		Name       string     `json:"name"`
		Attributes []jsonKV   `json:"attributes"`
	} `json:"events"`
	Links []struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	} `json:"links"`
	Status struct {
		Code    jsonStatusCode `json:"code"`
		Message string         `json:"message"`
	} `json:"status"`
}

type jsonKV struct {
	Key   string  `json:"key"`
	Value jsonAny `json:"value"`
}

// jsonAny is an OTLP AnyValue: one of its members is set.
type jsonAny struct {
	StringValue *string     `json:"stringValue"`
	BoolValue   *bool       `json:"boolValue"`
	IntValue    *jsonInt64  `json:"intValue"`
	DoubleValue *jsonDouble `json:"doubleValue"`
	ArrayValue  *struct {
		Values []jsonAny `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []jsonKV `json:"values"`
	} `json:"kvlistValue"`
	BytesValue *string `json:"bytesValue"`
}

// spansOfLine decodes one OTLP JSON line into Spans. The spans of one
// resource share its Resource map.
func spansOfLine(line []byte) ([]Span, error) {
	var req jsonRequest
	if err := json.NewDecoder(bytes.NewReader(line)).Decode(&req); err != nil {
		return nil, err
	}
	var out []Span
	for _, rs := range req.ResourceSpans {
		res, err := attrMap(rs.Resource.Attributes)
		if err != nil {
			return nil, err
		}
		for _, ss := range rs.ScopeSpans {
			for i := range ss.Spans {
				s, err := ss.Spans[i].span(res)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

func (p *jsonSpan) span(res map[string]any) (Span, error) {
	for _, id := range []struct{ key, id string }{{"traceId", p.TraceID}, {"spanId", p.SpanID}, {"parentSpanId", p.ParentSpanID}} {
		if !isHex(id.id) {
			return Span{}, fmt.Errorf("%s: id %q is not hex", id.key, id.id)
		}
	}
	for _, id := range []*string{&p.TraceID, &p.SpanID, &p.ParentSpanID} {
		*id = strings.ToLower(*id)
	}
	for _, l := range p.Links {
		for _, id := range []struct{ key, id string }{{"traceId", l.TraceID}, {"spanId", l.SpanID}} {
			if !isHex(id.id) {
				return Span{}, fmt.Errorf("%s: id %q is not hex", id.key, id.id)
			}
		}
	}
	if len(p.TraceID) != 32 || len(p.SpanID) != 16 || (len(p.ParentSpanID) != 0 && len(p.ParentSpanID) != 16) {
		return Span{}, fmt.Errorf("span %q: trace id of %d bytes, span id of %d, parent of %d; want 16, 8 and 8 (or none)",
			p.Name, len(p.TraceID)/2, len(p.SpanID)/2, len(p.ParentSpanID)/2)
	}
	attrs, err := attrMap(p.Attributes)
	if err != nil {
		return Span{}, err
	}
	s := Span{TraceID: p.TraceID, SpanID: p.SpanID, ParentID: p.ParentSpanID, Name: p.Name,
		Start: fromUnixNano(uint64(p.Start)), End: fromUnixNano(uint64(p.End)),
		Status: StatusUnset, StatusMessage: p.Status.Message, Attrs: attrs, Resource: res}
	switch p.Status.Code {
	case statusOK:
		s.Status = StatusOK
	case statusError:
		s.Status = StatusError
	}
	for _, ev := range p.Events {
		a, err := attrMap(ev.Attributes)
		if err != nil {
			return Span{}, err
		}
		s.Events = append(s.Events, Event{Name: ev.Name, Time: fromUnixNano(uint64(ev.Time)), Attrs: a})
	}
	return s, nil
}

func isHex(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func attrMap(kvs []jsonKV) (map[string]any, error) {
	m := make(map[string]any, len(kvs))
	for i := range kvs {
		v, err := kvs[i].Value.value()
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", kvs[i].Key, err)
		}
		m[kvs[i].Key] = v
	}
	return m, nil
}

// value is the Go value of v, as Span documents them (goValue's, for an
// AnyValue decoded by protojson).
func (v *jsonAny) value() (any, error) {
	switch {
	case v.StringValue != nil:
		return *v.StringValue, nil
	case v.BoolValue != nil:
		return *v.BoolValue, nil
	case v.IntValue != nil:
		return int64(*v.IntValue), nil
	case v.DoubleValue != nil:
		return float64(*v.DoubleValue), nil
	case v.ArrayValue != nil:
		out := make([]any, len(v.ArrayValue.Values))
		for i := range v.ArrayValue.Values {
			x, err := v.ArrayValue.Values[i].value()
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case v.KvlistValue != nil:
		m, err := attrMap(v.KvlistValue.Values)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(m)
		return string(b), nil
	case v.BytesValue != nil:
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if raw, err := enc.DecodeString(*v.BytesValue); err == nil {
				return base64.StdEncoding.EncodeToString(raw), nil
			}
		}
		return nil, fmt.Errorf("bytesValue %q is not base64", *v.BytesValue)
	}
	return nil, nil
}

// jsonNumber is the text of a JSON number, or of a string holding one.
func jsonNumber(b []byte) (string, bool) {
	if len(b) > 1 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", false
		}
		return strings.TrimSpace(s), true
	}
	return string(b), true
}

var errNotInteger = errors.New("not an integer")

// integer parses a whole number, written as one or in exponent form.
func integer(b []byte, signed bool) (int64, uint64, error) {
	if bytes.Equal(b, []byte("null")) {
		return 0, 0, nil
	}
	s, ok := jsonNumber(b)
	if !ok {
		return 0, 0, fmt.Errorf("%s: %w", b, errNotInteger)
	}
	if signed {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, 0, nil
		}
	} else if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return 0, n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || f != math.Trunc(f):
	case signed && f >= math.MinInt64 && f < math.MaxInt64:
		return int64(f), 0, nil
	case !signed && f >= 0 && f < math.MaxUint64:
		return 0, uint64(f), nil
	}
	return 0, 0, fmt.Errorf("%s: %w", b, errNotInteger)
}

// jsonUint64 is a fixed64 or uint64 field.
type jsonUint64 uint64

func (n *jsonUint64) UnmarshalJSON(b []byte) error {
	_, u, err := integer(b, false)
	*n = jsonUint64(u)
	return err
}

// jsonInt64 is an int64 field.
type jsonInt64 int64

func (n *jsonInt64) UnmarshalJSON(b []byte) error {
	i, _, err := integer(b, true)
	*n = jsonInt64(i)
	return err
}

// jsonDouble is a double field.
type jsonDouble float64

func (d *jsonDouble) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s, _ := jsonNumber(b)
	switch s {
	case "NaN":
		*d = jsonDouble(math.NaN())
		return nil
	case "Infinity":
		*d = jsonDouble(math.Inf(1))
		return nil
	case "-Infinity":
		*d = jsonDouble(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%s: not a number", b)
	}
	*d = jsonDouble(f)
	return nil
}

// OTLP's status codes.
const (
	statusOK    = 1
	statusError = 2
)

// jsonStatusCode is the status code, as a number or its enum name.
type jsonStatusCode int32

func (c *jsonStatusCode) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		// An unknown name is unset, as protojson has it when discarding
		// unknown fields.
		*c = map[string]jsonStatusCode{"STATUS_CODE_OK": statusOK, "STATUS_CODE_ERROR": statusError}[name]
		return nil
	}
	i, _, err := integer(b, true)
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return fmt.Errorf("status code %s: not an enum number", b)
	}
	*c = jsonStatusCode(i)
	return nil
}
