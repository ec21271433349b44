package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"

	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/tracefile"
)

func init() {
	register("trace", command{summary: "trace send FILE: replay a trace file to an OTLP endpoint (Jaeger, Tempo, a Collector)", run: runTrace})
}

func runTrace(args []string, stdout, stderr io.Writer) error {
	// A usage mistake: main prints the reason first, then the usage line; exit 2.
	mistake := func(fs *flag.FlagSet, err error) error { return usageError{err: err, fs: fs} }
	if len(args) == 0 || args[0] != "send" {
		fs := newFlags("trace", "send FILE", stderr)
		if len(args) == 0 {
			return mistake(fs, errors.New("want a subcommand: send"))
		}
		return mistake(fs, fmt.Errorf("unknown subcommand %q (want send)", args[0]))
	}
	fs := newFlags("trace send", "FILE", stderr)
	endpoint := fs.String("endpoint", "", "OTLP collector, host:port or http(s)://host:port (default: OTEL_EXPORTER_OTLP_ENDPOINT, else localhost)")
	insecure := fs.Bool("insecure", false, "plain text, no TLS (the default for a loopback host:port or an http:// URL)")
	protocol := fs.String("protocol", "grpc", "grpc (port 4317) or http (OTLP/HTTP protobuf, port 4318)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return mistake(fs, fmt.Errorf("want one trace file, got %d arguments", fs.NArg()))
	}
	kind := map[string]string{"grpc": pl.ExporterOTLPGRPC, "http": pl.ExporterOTLPHTTP}[*protocol]
	if kind == "" {
		return mistake(fs, fmt.Errorf("--protocol %q: want grpc or http", *protocol))
	}
	path := fs.Arg(0)
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
