package tracefile

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// Request is one line of an OTLP JSON trace file: an OTLP
// ExportTraceServiceRequest.
type Request = coltracepb.ExportTraceServiceRequest

// fromSDK builds one request from finished SDK spans, grouped by resource
// and instrumentation scope.
func fromSDK(spans []sdktrace.ReadOnlySpan) *Request {
	req := &Request{}
	type scopeKey struct{ name, version string }
	byRes := map[string]*tracepb.ResourceSpans{}
	byScope := map[*tracepb.ResourceSpans]map[scopeKey]*tracepb.ScopeSpans{}
	for _, s := range spans {
		var resAttrs []attribute.KeyValue
		resKey := ""
		if r := s.Resource(); r != nil {
			resAttrs = r.Attributes()
			resKey = r.Encoded(attribute.DefaultEncoder())
		}
		rs := byRes[resKey]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: keyValues(resAttrs)}}
			if r := s.Resource(); r != nil {
				rs.SchemaUrl = r.SchemaURL()
			}
			byRes[resKey] = rs
			byScope[rs] = map[scopeKey]*tracepb.ScopeSpans{}
			req.ResourceSpans = append(req.ResourceSpans, rs)
		}
		sc := s.InstrumentationScope()
		k := scopeKey{sc.Name, sc.Version}
		ss := byScope[rs][k]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version}, SchemaUrl: sc.SchemaURL}
			byScope[rs][k] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanProto(s))
	}
	return req
}

func spanProto(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   tracepb.Span_SpanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: uint32(max(s.DroppedAttributes(), 0)),
		DroppedEventsCount:     uint32(max(s.DroppedEvents(), 0)),
		DroppedLinksCount:      uint32(max(s.DroppedLinks(), 0)),
		Flags:                  uint32(sc.TraceFlags()),
		Status:                 &tracepb.Status{Message: s.Status().Description},
	}
	switch s.Status().Code { // the numbering differs: OTLP has OK = 1, ERROR = 2
	case codes.Ok:
		p.Status.Code = tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		p.Status.Code = tracepb.Status_STATUS_CODE_ERROR
	}
	if par := s.Parent(); par.IsValid() {
		psid := par.SpanID()
		p.ParentSpanId = psid[:]
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{TimeUnixNano: unixNano(ev.Time), Name: ev.Name,
			Attributes: keyValues(ev.Attributes), DroppedAttributesCount: uint32(max(ev.DroppedAttributeCount, 0))})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		p.Links = append(p.Links, &tracepb.Span_Link{TraceId: ltid[:], SpanId: lsid[:], TraceState: l.SpanContext.TraceState().String(),
			Attributes: keyValues(l.Attributes), DroppedAttributesCount: uint32(max(l.DroppedAttributeCount, 0))})
	}
	return p
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}

func keyValues(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(attrValue(kv.Value))})
	}
	return out
}

// anyValue converts a Go attribute value (string, bool, int64, float64,
// slices of those, []any) into OTLP's AnyValue.
func anyValue(v any) *commonpb.AnyValue {
	switch x := v.(type) {
	case string:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: x}}
	case bool:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: x}}
	case int64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: x}}
	case int:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(x)}}
	case float64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: x}}
	case []string:
		return array(x)
	case []int64:
		return array(x)
	case []float64:
		return array(x)
	case []bool:
		return array(x)
	case []any:
		return array(x)
	case nil:
		return &commonpb.AnyValue{}
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: fmt.Sprint(v)}}
}

func array[T any](xs []T) *commonpb.AnyValue {
	vals := make([]*commonpb.AnyValue, len(xs))
	for i, x := range xs {
		vals[i] = anyValue(x)
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}}
}

// goValue converts an AnyValue back into the types Span documents.
func goValue(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return base64.StdEncoding.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		out := make([]any, len(x.ArrayValue.GetValues()))
		for i, e := range x.ArrayValue.GetValues() {
			out[i] = goValue(e)
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		m := map[string]any{}
		for _, kv := range x.KvlistValue.GetValues() {
			m[kv.GetKey()] = goValue(kv.GetValue())
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	return nil
}

func attrsOf(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = goValue(kv.GetValue())
	}
	return m
}

// spansOf converts a request into Spans.
func spansOf(req *Request) []Span {
	var out []Span
	for _, rs := range req.GetResourceSpans() {
		res := attrsOf(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, p := range ss.GetSpans() {
				s := Span{
					TraceID: hex.EncodeToString(p.GetTraceId()), SpanID: hex.EncodeToString(p.GetSpanId()),
					ParentID: hex.EncodeToString(p.GetParentSpanId()), Name: p.GetName(),
					Start: fromUnixNano(p.GetStartTimeUnixNano()), End: fromUnixNano(p.GetEndTimeUnixNano()),
					Status: StatusUnset, StatusMessage: p.GetStatus().GetMessage(),
					Attrs: attrsOf(p.GetAttributes()), Resource: copyMap(res),
				}
				switch p.GetStatus().GetCode() {
				case tracepb.Status_STATUS_CODE_OK:
					s.Status = StatusOK
				case tracepb.Status_STATUS_CODE_ERROR:
					s.Status = StatusError
				}
				for _, ev := range p.GetEvents() {
					s.Events = append(s.Events, Event{Name: ev.GetName(), Time: fromUnixNano(ev.GetTimeUnixNano()), Attrs: attrsOf(ev.GetAttributes())})
				}
				out = append(out, s)
			}
		}
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func fromUnixNano(ns uint64) time.Time {
	if ns > math.MaxInt64 {
		ns = math.MaxInt64
	}
	return time.Unix(0, int64(ns)).UTC()
}

// requestOf converts Spans (from any format) into one request, grouped by
// resource. Ids that are not hex of the right length are an error naming
// the span.
func requestOf(spans []Span) (*Request, error) {
	req := &Request{}
	byRes := map[string]*tracepb.ScopeSpans{}
	for i := range spans {
		s := &spans[i]
		key := resourceKey(s.Resource)
		ss := byRes[key]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: "github.com/prooflane/prooflane"}}
			byRes[key] = ss
			req.ResourceSpans = append(req.ResourceSpans, &tracepb.ResourceSpans{
				Resource: &resourcepb.Resource{Attributes: mapKeyValues(s.Resource)}, ScopeSpans: []*tracepb.ScopeSpans{ss}})
		}
		tid, err := hexID(s.TraceID, 16)
		if err != nil {
			return nil, fmt.Errorf("span %q: trace id: %w", s.Name, err)
		}
		sid, err := hexID(s.SpanID, 8)
		if err != nil {
			return nil, fmt.Errorf("span %q: span id: %w", s.Name, err)
		}
		p := &tracepb.Span{TraceId: tid, SpanId: sid, Name: s.Name, Kind: tracepb.Span_SPAN_KIND_INTERNAL,
			StartTimeUnixNano: unixNano(s.Start), EndTimeUnixNano: unixNano(s.End), Attributes: mapKeyValues(s.Attrs),
			Status: &tracepb.Status{Message: s.StatusMessage}}
		if s.ParentID != "" {
			if p.ParentSpanId, err = hexID(s.ParentID, 8); err != nil {
				return nil, fmt.Errorf("span %q: parent span id: %w", s.Name, err)
			}
		}
		switch s.Status {
		case StatusOK:
			p.Status.Code = tracepb.Status_STATUS_CODE_OK
		case StatusError:
			p.Status.Code = tracepb.Status_STATUS_CODE_ERROR
		}
		for _, ev := range s.Events {
			p.Events = append(p.Events, &tracepb.Span_Event{Name: ev.Name, TimeUnixNano: unixNano(ev.Time), Attributes: mapKeyValues(ev.Attrs)})
		}
		ss.Spans = append(ss.Spans, p)
	}
	return req, nil
}

func resourceKey(m map[string]any) string {
	b, _ := json.Marshal(m) // encoding/json sorts map keys
	return string(b)
}

func mapKeyValues(m map[string]any) []*commonpb.KeyValue {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*commonpb.KeyValue, 0, len(m))
	for _, k := range keys {
		out = append(out, &commonpb.KeyValue{Key: k, Value: anyValue(m[k])})
	}
	return out
}

func hexID(s string, n int) ([]byte, error) {
	if len(s) < 2*n && len(s) > 0 {
		s = strings.Repeat("0", 2*n-len(s)) + s // Jaeger drops leading zeros
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		return nil, fmt.Errorf("%q is not %d hex digits", s, 2*n)
	}
	return b, nil
}

// idKeys are the OTLP JSON fields that hold trace and span ids: the
// encoding gives them as hex strings where protobuf's JSON mapping would
// give base64.
var idKeys = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true}

// MarshalRequest encodes a request as one line of OTLP JSON, the file
// encoding of the OpenTelemetry specification (what the Collector's
// otlpjsonfile receiver reads): lowerCamelCase fields, enums as numbers,
// 64-bit integers as strings, ids as hex. No newline is appended.
func MarshalRequest(req *Request) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if err := recodeIDs(doc, func(s string) (string, error) {
		raw, err := base64.StdEncoding.DecodeString(s)
		return hex.EncodeToString(raw), err
	}); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// UnmarshalRequest decodes one line of OTLP JSON. Unknown fields are
// ignored, as the specification asks of readers.
func UnmarshalRequest(line []byte) (*Request, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if err := recodeIDs(doc, func(s string) (string, error) {
		raw, err := hex.DecodeString(s)
		if err != nil {
			return "", fmt.Errorf("id %q is not hex", s)
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	}); err != nil {
		return nil, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	req := &Request{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, req); err != nil {
		return nil, err
	}
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, p := range ss.GetSpans() {
				if len(p.GetTraceId()) != 16 || len(p.GetSpanId()) != 8 || (len(p.GetParentSpanId()) != 0 && len(p.GetParentSpanId()) != 8) {
					return nil, fmt.Errorf("span %q: trace id of %d bytes, span id of %d, parent of %d; want 16, 8 and 8 (or none)",
						p.GetName(), len(p.GetTraceId()), len(p.GetSpanId()), len(p.GetParentSpanId()))
				}
			}
		}
	}
	return req, nil
}

// recodeIDs rewrites the string values of id fields anywhere in a decoded
// JSON document.
func recodeIDs(v any, conv func(string) (string, error)) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && idKeys[k] {
				c, err := conv(s)
				if err != nil {
					return fmt.Errorf("%s: %w", k, err)
				}
				x[k] = c
				continue
			}
			if err := recodeIDs(e, conv); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := recodeIDs(e, conv); err != nil {
				return err
			}
		}
	}
	return nil
}

// isOTLPLine reports whether a JSON line is an OTLP request rather than a
// span of the older JSON-lines format.
func isOTLPLine(b []byte) bool {
	b = bytes.TrimSpace(b)
	return bytes.HasPrefix(b, []byte("{")) && bytes.Contains(b[:min(len(b), 64)], []byte(`"resourceSpans"`))
}

// OTLPRequests returns the trace as OTLP requests: an OTLP JSON file's
// requests as they were written, or the spans of another format converted
// (at most 1000 spans a request), with their ids and timestamps.
func (t *Trace) OTLPRequests() ([]*Request, error) {
	if t.Requests != nil {
		return t.Requests, nil
	}
	var out []*Request
	for i := 0; i < len(t.Spans); i += writeChunk {
		req, err := requestOf(t.Spans[i:min(i+writeChunk, len(t.Spans))])
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}
