// Package tracefile writes and reads prooflane's JSON-lines trace file, and
// reads Jaeger's JSON export of a trace into the same Span type.
//
// # The JSON-lines format
//
// One finished span per line, in the order spans end (children before
// their parents). Every line is a JSON object:
//
//	{
//	  "trace_id":       "4bf92f3577b34da6a3ce929d0e0e4736",  // 32 hex digits
//	  "span_id":        "00f067aa0ba902b7",                  // 16 hex digits
//	  "parent_span_id": "53995c3f42cd8ad8",                  // "" for a root span
//	  "name":           "prep_msm",
//	  "start":          "2026-11-29T07:05:41.123456789Z",    // RFC 3339, nanoseconds
//	  "end":            "2026-11-29T07:05:41.223456789Z",
//	  "duration_ms":    100.0,
//	  "status":         "ok",         // "ok", "error" or "unset"
//	  "status_message": "",           // the error text when status is "error"
//	  "attributes":     {"prooflane.kind": "stage", "prooflane.locks": ["gpu.0.compute"], ...},
//	  "events":         [{"name": "exception", "time": "...", "attributes": {...}}],
//	  "resource":       {"service.name": "prooflane", "prooflane.pipeline": "groth16", ...}
//	}
//
// Attribute values keep their JSON type: strings, booleans, numbers, and
// arrays of those for slice attributes. Readers must ignore keys they do
// not know, so the format can grow.
//
// # Jaeger's JSON
//
// Read also accepts the v1 query API answer (/api/traces/{id}, and the
// "download JSON" button of Jaeger's UI): {"data": [{"traceID", "spans":
// [...], "processes": {...}}]}. Tags become attributes (array attributes,
// which Jaeger stores as JSON strings, are decoded back into arrays), the
// CHILD_OF reference becomes the parent, otel.status_code and the error tag
// become the status, logs become events and the process becomes the
// resource.
package tracefile
