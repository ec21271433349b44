package main

import (
	"context"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"

	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/tracefile"
)

func init() {
	register("trace", command{summary: "trace send FILE: replay a trace file to an OTLP endpoint (Jaeger, Tempo, a Collector)", run: runTrace, subcommands: []string{"send"}})
}

func runTrace(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("trace send", "FILE", stderr)
	endpoint := fs.String("endpoint", "", "OTLP collector, `host:port` or http(s)://host:port (default: OTEL_EXPORTER_OTLP_ENDPOINT, else localhost)")
	insecure := fs.Bool("insecure", false, "plain text, no TLS (the default for a loopback host:port or an http:// URL)")
	protocol := fs.String("protocol", "grpc", "grpc (port 4317) or http (OTLP/HTTP protobuf, port 4318)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
		return usageErrorf(fs, "want a subcommand: send")
	case fs.Arg(0) != "send":
		return usageErrorf(fs, "unknown subcommand %q%s (want send)", fs.Arg(0), didYouMean(fs.Arg(0), []string{"send"}, ""))
	case fs.NArg() != 2:
		return usageErrorf(fs, "want one trace file, got %d arguments", fs.NArg()-1)
	}
	kind := map[string]string{"grpc": pl.ExporterOTLPGRPC, "http": pl.ExporterOTLPHTTP}[*protocol]
	if kind == "" {
		return usageErrorf(fs, "--protocol %q: want grpc or http", *protocol)
	}
	path := fs.Arg(1)
	tr, err := tracefile.Load(path)
	if err != nil {
		return err
	}
	for _, w := range tr.Warnings {
		fmt.Fprintf(stderr, "prooflane trace send: warning: %s\n", w)
	}
	reqs, err := tr.OTLPRequests()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	client, where, err := pl.NewClient(kind, *endpoint, *insecure)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	spans, err := sendRequests(ctx, client, reqs, path, where)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sent %d spans of %s to %s\n", spans, path, where)
	return nil
}

// sendRequests uploads the trace file's requests to the collector at
// where, one after the other, and counts their spans.
func sendRequests(ctx context.Context, client otlptrace.Client, reqs []*tracefile.Request, path, where string) (int, error) {
	if err := client.Start(ctx); err != nil {
		return 0, fmt.Errorf("%s: %w", where, err)
	}
	spans := 0
	for i, req := range reqs {
		if err := client.UploadTraces(ctx, req.GetResourceSpans()); err != nil {
			client.Stop(context.Background())
			return 0, fmt.Errorf("sending %s to %s: request %d of %d: %w (is the collector running?)", path, where, i+1, len(reqs), err)
		}
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				spans += len(ss.GetSpans())
			}
		}
	}
	if err := client.Stop(ctx); err != nil {
		return 0, fmt.Errorf("%s: %w", where, err)
	}
	return spans, nil
}
