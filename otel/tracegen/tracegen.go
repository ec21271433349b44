// Package tracegen writes synthetic prooflane traces of any size, for the
// tests and benchmarks of the trace readers and `prooflane analyze`.
//
// A trace is what `prooflane run` records for a Groth16-shaped pipeline of
// sim stages (pipelines/sim-groth16.yaml) on several devices: per job a job
// span, per partition a partition span, stage spans (with retried failures),
// lock_wait and lock_hold spans, and kernel spans under the device stages,
// with the runtime's attributes and resource. The spans go through the
// OpenTelemetry SDK and tracefile's exporter in batches of 512, so the file
// is the OTLP JSON lines those commands write, its spans in the order they
// end.
//
// The schedule is computed, not run: stage durations are drawn with jitter
// from a seeded generator, and every resource (worker pools, a CPU-bandwidth
// semaphore, per-device memory and compute locks) grants requests in the
// order they are made, up to its capacity; a stage acquires its resources
// one after the other, holding those granted while it waits for the next.
// So the lock waits, holds and stage runs agree with each other, and Truth
// gives the figures a report must find, known from the schedule. The same
// Config writes the same bytes.
package tracegen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// Config says what trace to write. Zero fields take the defaults.
type Config struct {
	// Spans is the least number of spans: whole jobs are written until the
	// count reaches it (about 21 spans a partition). Required.
	Spans int
	// Devices the partitions are spread over, round robin; default 2.
	Devices int
	// Partitions of each job; default 10.
	Partitions int
	// Inflight is how many jobs run at once: a job starts when the one
	// Inflight before it ended; default 2.
	Inflight int
	// FailEvery makes every FailEvery-th upload (vram_stage run) fail and
	// be retried 50ms later; default 40, negative for none.
	FailEvery int
	// Seed seeds the durations and ids.
	Seed uint64
	// Start is the time of the first job; default 2026-12-01 00:00 UTC.
	Start time.Time
}

// Limits on a Config, so a typing mistake does not fill a disk.
const (
	MaxSpans      = 100_000_000
	MaxDevices    = 64
	MaxPartitions = 100_000
)

// Validate reports the first field out of range.
func (c Config) Validate() error { return c.defaults() }

// defaults fills in the zero fields and checks the config.
func (c *Config) defaults() error {
	if c.Spans <= 0 || c.Spans > MaxSpans {
		return fmt.Errorf("spans %d: want 1 to %d", c.Spans, MaxSpans)
	}
	if c.Devices == 0 {
		c.Devices = 2
	}
	if c.Partitions == 0 {
		c.Partitions = 10
	}
	if c.Inflight == 0 {
		c.Inflight = 2
	}
	if c.FailEvery == 0 {
		c.FailEvery = 40
	}
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	}
	switch {
	case c.Devices < 1 || c.Devices > MaxDevices:
		return fmt.Errorf("devices %d: want 1 to %d", c.Devices, MaxDevices)
	case c.Partitions < 1 || c.Partitions > MaxPartitions:
		return fmt.Errorf("partitions %d: want 1 to %d", c.Partitions, MaxPartitions)
	case c.Inflight < 1:
		return fmt.Errorf("inflight %d: want at least 1", c.Inflight)
	}
	return nil
}

// Truth is what the schedule says a report of the trace must find.
type Truth struct {
	Spans, Jobs, Partitions int
	Start, End              time.Time // the first span's start, the last span's end
	Stages                  map[string]*StageTruth
	Resources               map[string]*ResourceTruth
	Kernels                 map[string]*KernelTruth
	// Busy is, by device, the time its gpu_compute runs (the stage
	// declared busy) took; they never overlap, as each device's compute
	// lock has capacity 1.
	Busy map[int]time.Duration
}

// StageTruth is one stage's runs.
type StageTruth struct {
	Type      string
	Errors    int
	Durations []time.Duration // of every run, in the order scheduled
	Wait      time.Duration   // summed prooflane.wait_ms
}

// ResourceTruth is one resource's grants.
type ResourceTruth struct {
	Capacity int64
	Device   int // -1 for the machine's
	Holds    int
	// HoldTotal sums the holds' durations: the time held for a resource
	// of capacity 1.
	HoldTotal time.Duration
	Waits     int // grants that queued
	WaitTotal time.Duration
	WaitMax   time.Duration
}

// KernelTruth is one kernel's runs.
type KernelTruth struct {
	Count   int
	Total   time.Duration
	GPUTime time.Duration // summed prooflane.gpu_time_ms
}

// Write writes the trace of cfg to w as OTLP JSON lines and returns what a
// report of it must find.
func Write(w io.Writer, cfg Config) (*Truth, error) {
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("tracegen: %w", err)
	}
	g := newGen(cfg)
	exp := tracefile.NewExporter(w)
	proc := &batcher{exp: exp, size: 512}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(runResource(cfg)), sdktrace.WithIDGenerator(g.ids),
		sdktrace.WithSpanProcessor(proc), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	g.tracers = map[string]trace.Tracer{}
	for _, scope := range []string{runtimeScope, kernelScope} {
		g.tracers[scope] = tp.Tracer(scope)
	}
	for g.truth.Spans < cfg.Spans {
		g.job()
		g.flush(g.nextStart())
	}
	g.flush(time.Time{})
	if err := errors.Join(tp.Shutdown(context.Background()), proc.err); err != nil {
		return nil, err
	}
	return g.truth, nil
}

const (
	runtimeScope = "github.com/prooflane/prooflane/runtime"
	kernelScope  = "github.com/prooflane/prooflane/device/traced"
	pipeline     = "sim-groth16"
)

// runResource is the resource `prooflane run` records, with fixed values.
func runResource(cfg Config) *resource.Resource {
	return resource.NewWithAttributes("https://opentelemetry.io/schemas/1.43.0",
		attribute.String("host.name", "tracegen"),
		attribute.Int("process.pid", 4242),
		attribute.String("prooflane.backend", "sim"),
		attribute.String("prooflane.pipeline", pipeline),
		attribute.String("prooflane.pipeline_file", "pipelines/sim-groth16.yaml"),
		attribute.String("prooflane.pipeline_sha256", fmt.Sprintf("%064x", cfg.Seed)),
		attribute.Int("prooflane.devices", cfg.Devices),
		attribute.String("service.name", "prooflane"),
		attribute.String("telemetry.sdk.language", "go"),
		attribute.String("telemetry.sdk.name", "opentelemetry"),
		attribute.String("telemetry.sdk.version", "1.47.0"),
	)
}

// batcher hands ended spans to the exporter in batches, in the order they
// end, as the batch span processor of `prooflane run` does, but
// synchronously so that the file does not depend on timing.
type batcher struct {
	exp   *tracefile.Exporter
	size  int
	batch []sdktrace.ReadOnlySpan
	err   error
}

func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	b.batch = append(b.batch, s)
	if len(b.batch) == b.size {
		b.export()
	}
}

func (b *batcher) export() {
	if b.err == nil && len(b.batch) > 0 {
		b.err = b.exp.ExportSpans(context.Background(), b.batch)
	}
	b.batch = b.batch[:0]
}

func (b *batcher) Shutdown(ctx context.Context) error {
	b.export()
	return errors.Join(b.err, b.exp.Shutdown(ctx))
}

func (b *batcher) ForceFlush(context.Context) error { b.export(); return b.err }

// ids hands the SDK the ids the schedule chose: a span is started with
// the id its children already name as their parent.
type ids struct {
	traceID trace.TraceID
	spanID  trace.SpanID
}

func (i *ids) NewIDs(context.Context) (trace.TraceID, trace.SpanID) { return i.traceID, i.spanID }

func (i *ids) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return i.spanID }

// planned is one span of the schedule, written when it ends.
type planned struct {
	scope      string
	name       string
	traceID    trace.TraceID
	id, parent trace.SpanID
	start, end time.Time
	attrs      []attribute.KeyValue
	late       []attribute.KeyValue // set when the span ends, as the runtime does
	errMsg     string
	seq        int
}

// flush writes the planned spans that end before t (all of them for a
// zero t), in the order they end.
func (g *gen) flush(t time.Time) {
	for g.pending.Len() > 0 && (t.IsZero() || g.pending.peek().end.Before(t)) {
		g.write(g.pending.pop())
	}
}

func (g *gen) write(p *planned) {
	g.ids.traceID, g.ids.spanID = p.traceID, p.id
	ctx := context.Background()
	if p.parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: p.traceID, SpanID: p.parent, TraceFlags: trace.FlagsSampled}))
	}
	_, sp := g.tracers[p.scope].Start(ctx, p.name, trace.WithTimestamp(p.start), trace.WithAttributes(p.attrs...))
	sp.SetAttributes(p.late...)
	if p.errMsg != "" {
		sp.SetStatus(codes.Error, p.errMsg)
	}
	sp.End(trace.WithTimestamp(p.end))
}

// gen is the schedule being built.
type gen struct {
	cfg       Config
	rng       *rand.Rand
	ids       *ids
	tracers   map[string]trace.Tracer
	pending   spanHeap
	seq       int
	res       map[string]*res
	jobEnds   []time.Time // of every job so far
	lastStart time.Time   // of the last job
	uploads   int         // vram_stage runs so far, for FailEvery
	truth     *Truth
}

func newGen(cfg Config) *gen {
	return &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x70726f6f666c616e)), ids: &ids{}, res: map[string]*res{},
		truth: &Truth{Stages: map[string]*StageTruth{}, Resources: map[string]*ResourceTruth{},
			Kernels: map[string]*KernelTruth{}, Busy: map[int]time.Duration{}}}
}

// nextStart is when the next job starts: Inflight jobs at once, started
// in order.
func (g *gen) nextStart() time.Time {
	n := len(g.jobEnds)
	if n < g.cfg.Inflight {
		return g.cfg.Start.Add(time.Duration(n) * time.Millisecond)
	}
	return maxTime(g.lastStart, g.jobEnds[n-g.cfg.Inflight].Add(100*time.Microsecond))
}

func (g *gen) spanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		for i := range id {
			id[i] = byte(g.rng.Uint32())
		}
	}
	return id
}

// plan adds a span to the schedule and to the truth's counts.
func (g *gen) plan(p *planned) *planned {
	g.seq++
	p.seq = g.seq
	if !p.id.IsValid() {
		p.id = g.spanID()
	}
	g.pending.push(p)
	t := g.truth
	t.Spans++
	if t.Start.IsZero() || p.start.Before(t.Start) {
		t.Start = p.start
	}
	if p.end.After(t.End) {
		t.End = p.end
	}
	return p
}

// jitter is d ± j, uniformly, rounded to the microsecond.
func (g *gen) jitter(d, j time.Duration) time.Duration {
	if j > 0 {
		d += time.Duration(g.rng.Int64N(int64(2*j+1))) - j
	}
	return d.Round(time.Microsecond)
}
