package otel

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exportTimeout bounds one export attempt; retryElapsed bounds retries of
// one batch, so an unreachable collector costs seconds, not minutes.
const (
	exportTimeout = 5 * time.Second
	retryElapsed  = 5 * time.Second
)

// protocol resolves "otlp" to "otlp-grpc" or "otlp-http" from the standard
// protocol variables.
func protocol(exporter string) (string, error) {
	if exporter != ExporterOTLP {
		return exporter, nil
	}
	p := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if p == "" {
		p = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.ToLower(strings.TrimSpace(p)) {
	case "", "grpc":
		return ExporterOTLPGRPC, nil
	case "http/protobuf":
		return ExporterOTLPHTTP, nil
	}
	return "", fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q not supported (want grpc or http/protobuf)", p)
}

// envEndpoint is the endpoint the standard variables name, or "".
func envEndpoint() string {
	if e := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

func envInsecureSet() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_INSECURE") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_INSECURE") != ""
}

// endpoint is a parsed collector address.
type endpoint struct {
	raw      string
	url      *url.URL // nil for a bare host:port
	hostPort string
}

func parseEndpoint(s string) (endpoint, error) {
	e := endpoint{raw: s}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return e, fmt.Errorf("trace endpoint %q: %w", s, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return e, fmt.Errorf("trace endpoint %q: scheme %q not supported (want http or https)", s, u.Scheme)
		}
		e.url, e.hostPort = u, u.Host
		return e, nil
	}
	e.hostPort = s
	return e, nil
}

// loopback reports whether the endpoint's host is this machine.
func (e endpoint) loopback() bool {
	host := e.hostPort
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// newOTLP builds the OTLP exporter and says where it sends, for warnings.
func newOTLP(ctx context.Context, kind, override string) (sdktrace.SpanExporter, string, error) {
	c, where, err := NewClient(kind, override, false)
	if err != nil {
		return nil, "", err
	}
	exp, err := otlptrace.New(ctx, c)
	if err != nil {
		return nil, "", fmt.Errorf("%s exporter: %w", where, err)
	}
	return exp, where, nil
}

// NewClient builds an OTLP trace client (kind ExporterOTLP, ExporterOTLPGRPC
// or ExporterOTLPHTTP) for the collector, or for the standard variables
// when collector is "", and says where it sends ("otlp grpc 127.0.0.1:4317").
// The trace exporter and `prooflane trace send` use it.
//
// The clients read every OTEL_EXPORTER_OTLP_* variable themselves;
// options given here override them, so only two are given: the endpoint
// when one is named, and plain text (no TLS) when insecure is set, for a
// loopback collector named without a scheme, or when nothing names one,
// since a local Jaeger or collector listens without TLS. An explicit
// OTEL_EXPORTER_OTLP_INSECURE still wins in the second case.
func NewClient(kind, collector string, insecure bool) (otlptrace.Client, string, error) {
	kind, err := protocol(kind)
	if err != nil {
		return nil, "", err
	}
	override := collector
	raw := override
	if raw == "" {
		raw = envEndpoint()
	}
	var ep endpoint
	if raw != "" {
		var err error
		if ep, err = parseEndpoint(raw); err != nil {
			return nil, "", err
		}
	}
	insecure = insecure || plainText(override, ep, raw, envInsecureSet())

	switch kind {
	case ExporterOTLPGRPC:
		opts := []otlptracegrpc.Option{
			otlptracegrpc.WithTimeout(exportTimeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
				Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: retryElapsed,
			}),
		}
		switch {
		case override != "" && ep.url != nil:
			opts = append(opts, otlptracegrpc.WithEndpointURL(override))
		case override != "":
			opts = append(opts, otlptracegrpc.WithEndpoint(override))
		}
		if insecure {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		where := raw
		if where == "" {
			where = "localhost:4317"
		}
		return otlptracegrpc.NewClient(opts...), "otlp grpc " + where, nil
	case ExporterOTLPHTTP:
		opts := []otlptracehttp.Option{
			otlptracehttp.WithTimeout(exportTimeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
				Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: retryElapsed,
			}),
		}
		switch {
		case override != "" && ep.url != nil:
			u := *ep.url
			if u.Path == "" || u.Path == "/" {
				u.Path = "/v1/traces"
			}
			opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
		case override != "":
			opts = append(opts, otlptracehttp.WithEndpoint(override))
		}
		if insecure {
			opts = append(opts, otlptracehttp.WithInsecure())
		}
		where := raw
		if where == "" {
			where = "localhost:4318"
		}
		return otlptracehttp.NewClient(opts...), "otlp http " + where, nil
	}
	return nil, "", fmt.Errorf("trace exporter %q is not an otlp exporter", kind)
}

// plainText decides whether to add WithInsecure: for a loopback collector
// named without a scheme, or when no endpoint is named at all (the
// exporters' default is localhost). A URL's scheme decides by itself, and
// an explicit OTEL_EXPORTER_OTLP_INSECURE wins over the env-derived cases.
func plainText(override string, ep endpoint, raw string, envInsecure bool) bool {
	bareLoopback := raw != "" && ep.url == nil && ep.loopback()
	if override != "" {
		return bareLoopback
	}
	return (raw == "" || bareLoopback) && !envInsecure
}

// probeAddr is the host:port to dial to tell whether the collector is up,
// or "" when it cannot be told (no port, a unix socket).
func probeAddr(kind, raw string) string {
	if raw == "" {
		if kind == ExporterOTLPHTTP {
			return "localhost:4318"
		}
		return "localhost:4317"
	}
	ep, err := parseEndpoint(raw)
	if err != nil {
		return ""
	}
	if _, port, err := net.SplitHostPort(ep.hostPort); err != nil || port == "" {
		return ""
	}
	return ep.hostPort
}
