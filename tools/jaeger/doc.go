// Package jaeger pins the Jaeger v2 all-in-one collector used by
// scripts/jaeger.sh and the Jaeger integration test. It lives in its own
// module because Jaeger pins an older OpenTelemetry than prooflane; build
// it with `scripts/jaeger.sh build` (or `go build -o ../../bin/jaeger
// github.com/jaegertracing/jaeger/cmd/jaeger` from this folder).
package jaeger
