// Package jaegertest holds the end-to-end test of prooflane's OTLP export
// against a real Jaeger v2 (built with scripts/jaeger.sh build): it starts
// Jaeger on free loopback ports, proves a small Groth16 job with
// `prooflane prove --trace otlp`, reads the trace back through Jaeger's
// query API and checks the span tree. Set PROOFLANE_JAEGER to the Jaeger
// binary to run it; without it the Jaeger tests skip.
package jaegertest
