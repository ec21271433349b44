// Package otel sets up prooflane's tracing: where spans go (a trace file in
// OTLP JSON, or OTLP over gRPC or HTTP) and the tracer provider handed to
// the runtime. What the spans carry is named in the leaf package
// otel/semconv (the runtime and the stages import only that one, so they
// link no exporter); see docs/observability.md.
package otel
