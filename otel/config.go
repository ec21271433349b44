package otel

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
)

// Exporter names accepted by Config.Exporter and --trace.
const (
	ExporterFile     = "file"      // OTLP JSON lines, see package tracefile
	ExporterOTLP     = "otlp"      // gRPC, or HTTP when OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/protobuf
	ExporterOTLPGRPC = "otlp-grpc" // OTLP over gRPC, default endpoint localhost:4317
	ExporterOTLPHTTP = "otlp-http" // OTLP over HTTP/protobuf, default endpoint localhost:4318
	ExporterNone     = "none"      // no tracing
)

var exporters = []string{ExporterFile, ExporterOTLP, ExporterOTLPGRPC, ExporterOTLPHTTP, ExporterNone}

// DefaultServiceName is the service name when neither Config.ServiceName
// nor OTEL_SERVICE_NAME is set.
const DefaultServiceName = "prooflane"

// DefaultFile is the trace file written by the "file" exporter when
// Config.File is empty.
const DefaultFile = "trace.jsonl"

// Config says where spans go.
type Config struct {
	// Exporter is one of "file" (the default), "otlp", "otlp-grpc",
	// "otlp-http" or "none".
	Exporter string
	// File is the OTLP JSON-lines trace file of the "file" exporter, default
	// "trace.jsonl".
	File string
	// Endpoint overrides OTEL_EXPORTER_OTLP_ENDPOINT and
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://host:port" (plain text),
	// "https://host:port" (TLS) or "host:port" (plain text on loopback,
	// TLS elsewhere unless OTEL_EXPORTER_OTLP_INSECURE=true). For
	// otlp-http a URL without a path gets /v1/traces.
	Endpoint string
	// ServiceName is the service.name resource attribute, default
	// "prooflane"; OTEL_SERVICE_NAME wins when set.
	ServiceName string
	// Attributes are resource attributes: pipeline name and file hash,
	// backend, devices, circuit, size. OTEL_RESOURCE_ATTRIBUTES wins.
	Attributes []attribute.KeyValue
}

// RegisterFlags adds --trace, --trace-file and --trace-endpoint to fs,
// defaulting to c's current values.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	if c.Exporter == "" {
		c.Exporter = ExporterFile
	}
	if c.File == "" {
		c.File = DefaultFile
	}
	fs.StringVar(&c.Exporter, "trace", c.Exporter,
		"where spans go: "+strings.Join(exporters, ", ")+" (otlp reads the standard OTEL_EXPORTER_OTLP_* variables)")
	fs.StringVar(&c.File, "trace-file", c.File, "trace file of --trace file (OTLP JSON lines)")
	fs.StringVar(&c.Endpoint, "trace-endpoint", c.Endpoint,
		"OTLP collector, e.g. http://127.0.0.1:4317 (default: OTEL_EXPORTER_OTLP_ENDPOINT, else localhost)")
}

// validate fills defaults and checks the exporter name.
func (c *Config) validate() error {
	if c.Exporter == "" {
		c.Exporter = ExporterFile
	}
	if !slices.Contains(exporters, c.Exporter) {
		return fmt.Errorf("trace exporter %q not recognised (want one of %s)", c.Exporter, strings.Join(exporters, ", "))
	}
	if c.File == "" {
		c.File = DefaultFile
	}
	if c.ServiceName == "" {
		c.ServiceName = DefaultServiceName
	}
	return nil
}
