package otel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	otelsemconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// ShutdownTimeout bounds Provider.Shutdown when its context has no earlier
// deadline.
const ShutdownTimeout = 5 * time.Second

// TraceFileError is Shutdown's error when the trace file could not be
// written whole (a full disk, an I/O error): unlike a collector that is
// down, this leaves the run's own output incomplete, so a command fails on
// it.
type TraceFileError struct {
	File          string
	Lost, Written int64 // spans not written, and written
	Err           error
}

func (e *TraceFileError) Error() string {
	return fmt.Sprintf("%v (%d of %d spans not written)", e.Err, e.Lost, e.Lost+e.Written)
}

func (e *TraceFileError) Unwrap() error { return e.Err }

// Provider owns the tracer provider and its exporter.
type Provider struct {
	tp    trace.TracerProvider
	sdk   *sdktrace.TracerProvider // nil for "none"
	exp   *reportingExporter
	where string // "trace file trace.jsonl", "otlp grpc localhost:4317"
	file  string // the trace file of the file exporter, else ""
	probe string // collector host:port, dialled at Shutdown; "" for files
	once  sync.Once
	err   error
}

// Setup builds the tracer provider cfg asks for. Nothing is installed
// globally: pass TracerProvider() to the runtime. The caller must call
// Shutdown before exiting, or the last spans are lost.
func Setup(ctx context.Context, cfg Config) (*Provider, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Exporter == ExporterNone {
		return &Provider{tp: noop.NewTracerProvider(), where: "nowhere"}, nil
	}
	res, err := newResource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var (
		exp   sdktrace.SpanExporter
		where string
		probe string
		bsp   []sdktrace.BatchSpanProcessorOption
	)
	if cfg.Exporter == ExporterFile {
		if exp, err = tracefile.Create(cfg.File); err != nil {
			return nil, err
		}
		where = fmt.Sprintf("trace file %q", cfg.File)
		// A local file keeps every span: block rather than drop.
		bsp = append(bsp, sdktrace.WithBlocking(), sdktrace.WithMaxQueueSize(1<<14))
	} else {
		kind, err := protocol(cfg.Exporter)
		if err != nil {
			return nil, err
		}
		if exp, where, err = newOTLP(ctx, kind, cfg.Endpoint); err != nil {
			return nil, err
		}
		raw := cfg.Endpoint
		if raw == "" {
			raw = envEndpoint()
		}
		probe = probeAddr(kind, raw)
		// A slow or absent collector must not slow the pipeline: a
		// large queue, and drops (counted) when it overflows.
		bsp = append(bsp, sdktrace.WithMaxQueueSize(1<<16), sdktrace.WithMaxExportBatchSize(1024),
			sdktrace.WithBatchTimeout(500*time.Millisecond))
	}
	rep := &reportingExporter{next: exp}
	sdk := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(rep.ended()),
		sdktrace.WithBatcher(rep, bsp...),
	)
	prov := &Provider{tp: sdk, sdk: sdk, exp: rep, where: where, probe: probe}
	if cfg.Exporter == ExporterFile {
		prov.file = cfg.File
	}
	return prov, nil
}

func newResource(ctx context.Context, cfg Config) (*resource.Resource, error) {
	attrs := append([]attribute.KeyValue{otelsemconv.ServiceName(cfg.ServiceName)}, cfg.Attributes...)
	// Later options win: the env (OTEL_SERVICE_NAME,
	// OTEL_RESOURCE_ATTRIBUTES) overrides the config.
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithProcessPID(),
		resource.WithAttributes(attrs...),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	return res, nil // a partial resource (a detector failed) is still useful
}

// TracerProvider is what the runtime and the stages trace with.
func (p *Provider) TracerProvider() trace.TracerProvider { return p.tp }

// Where says where spans go, for messages: `trace file "trace.jsonl"`,
// "otlp grpc http://127.0.0.1:4317".
func (p *Provider) Where() string { return p.where }

// Shutdown ends tracing: it exports the spans still queued and closes the
// exporter, within ctx's deadline or ShutdownTimeout, whichever is
// earlier. It never hangs on an absent collector: it returns an error
// saying how many spans were not delivered, where to, and why. A trace
// file that could not be written whole is a *TraceFileError. Later calls
// return the first call's result.
func (p *Provider) Shutdown(ctx context.Context) error {
	p.once.Do(func() {
		if p.sdk == nil {
			return
		}
		timeout := ShutdownTimeout
		// A collector that refuses connections will not take the spans:
		// give the flush a moment, not the full timeout.
		var down error
		if p.probe != "" {
			conn, err := net.DialTimeout("tcp", p.probe, time.Second)
			if err != nil {
				down, timeout = err, 500*time.Millisecond
			} else {
				conn.Close()
			}
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		err := p.sdk.Shutdown(ctx)
		failed, total, first := p.exp.report()
		if p.file != "" {
			if cause := errors.Join(first, err); cause != nil || failed > 0 {
				if first != nil {
					cause = first // the exporter's Shutdown repeats it
				} else if cause == nil {
					cause = fmt.Errorf("trace file %q: the flush gave up after %s", p.file, timeout)
				}
				p.err = &TraceFileError{File: p.file, Lost: failed, Written: total - failed, Err: cause}
			}
			return
		}
		switch {
		case down != nil:
			p.err = fmt.Errorf("spans not delivered to %s: %w (is the collector running?)", p.where, down)
		case failed > 0 && first != nil:
			p.err = fmt.Errorf("%d of %d spans not delivered to %s: %w (is the collector running?)", failed, total, p.where, first)
		case failed > 0:
			p.err = fmt.Errorf("%d of %d spans not delivered to %s: the flush gave up after %s: %v (is the collector running?)", failed, total, p.where, timeout, err)
		case err != nil && errors.Is(err, context.DeadlineExceeded):
			p.err = fmt.Errorf("flushing spans to %s: gave up after %s: %w (is the collector running?)", p.where, timeout, err)
		case err != nil:
			p.err = fmt.Errorf("flushing spans to %s: %w", p.where, err)
		}
	})
	return p.err
}

// reportingExporter counts the spans that ended and those its exporter
// delivered; the difference is what a warning reports, including spans
// still queued or in an export when Shutdown gave up. It returns nil to
// the batch processor so a dead collector yields one warning at Shutdown,
// not a log line per batch.
type reportingExporter struct {
	next            sdktrace.SpanExporter
	ends, delivered atomic.Int64
	mu              sync.Mutex
	first           error
}

func (r *reportingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := r.next.ExportSpans(ctx, spans); err != nil {
		r.mu.Lock()
		if r.first == nil {
			r.first = err
		}
		r.mu.Unlock()
		return nil
	}
	r.delivered.Add(int64(len(spans)))
	return nil
}

func (r *reportingExporter) Shutdown(ctx context.Context) error { return r.next.Shutdown(ctx) }

// report returns how many ended spans were not delivered, of how many, and
// the first export error.
func (r *reportingExporter) report() (failed, total int64, first error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	total = r.ends.Load()
	return total - r.delivered.Load(), total, r.first
}

// ended returns the span processor that counts ended spans for r.
func (r *reportingExporter) ended() sdktrace.SpanProcessor { return endCounter{&r.ends} }

type endCounter struct{ n *atomic.Int64 }

func (endCounter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c endCounter) OnEnd(sdktrace.ReadOnlySpan)                   { c.n.Add(1) }
func (endCounter) Shutdown(context.Context) error                  { return nil }
func (endCounter) ForceFlush(context.Context) error                { return nil }
