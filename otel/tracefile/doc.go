// Package tracefile writes and reads prooflane's trace files, and reads
// Jaeger's JSON export of a trace into the same Span type.
//
// # OTLP JSON lines (written)
//
// The file exporter writes the file encoding of the OpenTelemetry
// specification, the format the Collector's otlpjsonfile receiver reads:
// one OTLP ExportTraceServiceRequest per line, in protobuf's JSON mapping
// with lowerCamelCase field names, enum values as numbers, 64-bit integers
// as strings, and trace and span ids as hex strings. Each line holds one
// batch of finished spans, grouped by resource and instrumentation scope:
//
//	{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"prooflane"}},…]},
//	  "scopeSpans":[{"scope":{"name":"github.com/prooflane/prooflane/runtime"},
//	  "spans":[{"traceId":"5e72…","spanId":"b369…","parentSpanId":"f382…","name":"synthesize","kind":1,
//	    "startTimeUnixNano":"1764573340942260295","endTimeUnixNano":"1764573340975979728",
//	    "attributes":[{"key":"prooflane.kind","value":{"stringValue":"stage"}},…],"status":{}}]}]}]}
//
// Readers ignore fields they do not know. `prooflane trace send` replays
// such a file to an OTLP endpoint with its ids and timestamps unchanged.
//
// # Older JSON lines (read)
//
// Files written before OTLP JSON hold one span per line:
//
//	{"trace_id": "4bf9…", "span_id": "00f0…", "parent_span_id": "5399…", "name": "prep_msm",
//	 "start": "2026-11-29T07:05:41.123456789Z", "end": "…", "duration_ms": 100.0,
//	 "status": "ok", "status_message": "", "attributes": {"prooflane.kind": "stage", …},
//	 "events": [{"name": "exception", "time": "…", "attributes": {…}}], "resource": {…}}
//
// # Jaeger's JSON (read)
//
// Load also accepts the v1 query API answer (/api/traces/{id}, and the
// "download JSON" button of Jaeger's UI): {"data": [{"traceID", "spans":
// [...], "processes": {...}}]}. Tags become attributes (array attributes,
// which Jaeger stores as JSON strings, are decoded back into arrays), the
// CHILD_OF reference becomes the parent, otel.status_code and the error tag
// become the status, logs become events and the process becomes the
// resource.
//
// # Reading
//
// Load returns a file's spans sorted by start time. Scan hands them to a
// function one at a time, in the file's order, decoding one line at a
// time, so that reading a trace of any length takes the memory of one
// line (`prooflane analyze` reads this way).
//
// # Limits
//
// Load takes at most MaxFileSize bytes (1 GiB), Scan at most MaxScanSize
// (16 GiB) of JSON lines and MaxFileSize of a Jaeger export (one document,
// read whole); lines are at most MaxLineSize (64 MiB). A read past a limit
// says so, naming it. A last line that is cut short (a run killed while
// writing) is left out with a warning, not an error.
package tracefile
