// Package stagetest helps test stages and pipelines: a span recorder that
// turns the runtime's spans into intervals, and a lifecycle check every
// registered stage type must pass.
package stagetest

import (
	"context"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages"
)

// Recorder records every span in memory.
type Recorder struct {
	rec *tracetest.SpanRecorder
	tp  *sdktrace.TracerProvider
}

// NewRecorder returns a recorder and its tracer provider.
func NewRecorder() *Recorder {
	rec := tracetest.NewSpanRecorder()
	return &Recorder{rec: rec, tp: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))}
}

// TracerProvider is what to hand to runtime.Options.Tracer.
func (r *Recorder) TracerProvider() trace.TracerProvider { return r.tp }

// Spans returns the ended spans.
func (r *Recorder) Spans() []sdktrace.ReadOnlySpan { return r.rec.Ended() }

// Interval is one span seen as a time interval with its prooflane
// attributes.
type Interval struct {
	Name      string
	Kind      string
	Stage     string
	Partition int
	Device    int
	Worker    int
	Resource  string
	Locks     []string
	Start     time.Time
	End       time.Time
	Error     bool
	SpanID    trace.SpanID
	ParentID  trace.SpanID
}

// Overlaps reports whether two intervals share some time.
func (a Interval) Overlaps(b Interval) bool { return a.Start.Before(b.End) && b.Start.Before(a.End) }

// Intervals returns the spans of one kind (semconv.KindStage, ...), sorted by
// start time; kind "" returns all.
func (r *Recorder) Intervals(kind string) []Interval {
	var out []Interval
	for _, s := range r.Spans() {
		iv := Interval{Name: s.Name(), Start: s.StartTime(), End: s.EndTime(), Partition: -1, Device: -1, Worker: -1,
			SpanID: s.SpanContext().SpanID(), ParentID: s.Parent().SpanID(), Error: s.Status().Code == 1}
		for _, a := range s.Attributes() {
			switch a.Key {
			case pl.KeyKind:
				iv.Kind = a.Value.AsString()
			case pl.KeyStage:
				iv.Stage = a.Value.AsString()
			case pl.KeyPartition:
				iv.Partition = int(a.Value.AsInt64())
			case pl.KeyDevice:
				iv.Device = int(a.Value.AsInt64())
			case pl.KeyWorker:
				iv.Worker = int(a.Value.AsInt64())
			case pl.KeyResource:
				iv.Resource = a.Value.AsString()
			case pl.KeyLocks:
				iv.Locks = a.Value.AsStringSlice()
			}
		}
		if kind == "" || iv.Kind == kind {
			out = append(out, iv)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// Stage returns the stage intervals of one stage name.
func (r *Recorder) Stage(name string) []Interval {
	var out []Interval
	for _, iv := range r.Intervals(pl.KindStage) {
		if iv.Stage == name {
			out = append(out, iv)
		}
	}
	return out
}

// MaxConcurrent returns the largest number of intervals open at one time.
func MaxConcurrent(ivs []Interval) int {
	type edge struct {
		t     time.Time
		delta int
	}
	var es []edge
	for _, iv := range ivs {
		es = append(es, edge{iv.Start, 1}, edge{iv.End, -1})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].t.Equal(es[j].t) {
			return es[i].delta < es[j].delta // close before open at a tie
		}
		return es[i].t.Before(es[j].t)
	})
	cur, best := 0, 0
	for _, e := range es {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}

// Attr returns a span attribute by key, for assertions on one span.
func Attr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, a := range s.Attributes() {
		if a.Key == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

// CheckFactories runs the lifecycle check on every type in reg: a valid
// type name, a default config that validates, a constructor that accepts
// it, and a stage that starts (stages.Starter) on a host lending a CPU
// backend and shuts down (stages.Stopper) without error; started on a
// host lending no backend, it may refuse with an error but must not
// panic. Every registered stage type must pass it.
func CheckFactories(t testing.TB, reg *stages.Registry) {
	t.Helper()
	for _, typ := range reg.Types() {
		f, _ := reg.Lookup(typ)
		var cfg stages.Config
		if f.NewConfig != nil {
			cfg = f.NewConfig()
			if cfg == nil {
				t.Errorf("%s: NewConfig returned nil", typ)
				continue
			}
			if err := cfg.Validate(); err != nil {
				t.Errorf("%s: default config does not validate: %v", typ, err)
				continue
			}
		}
		s, err := f.New(cfg)
		if err != nil || s == nil {
			t.Errorf("%s: New(default config) = %v, %v", typ, s, err)
			continue
		}
		checkLifecycle(t, typ, s, f, cfg)
		if f.Doc == "" {
			t.Errorf("%s: factory has no Doc", typ)
		}
		for _, in := range f.Inputs {
			if in == "" {
				t.Errorf("%s: empty input data type", typ)
			}
		}
	}
}

// Host is a stages.Host for tests: it lends Backend (nil for none) and
// Devices.
type Host struct {
	B device.Backend
	N int
}

func (h Host) Backend() device.Backend { return h.B }
func (h Host) Devices() int            { return h.N }

// Canonical is be posing as devices that want canonical scalars, like a
// GPU's: stages convert for it, and the CPU backend's Upload converts
// back, so a test on the CPU covers the conversion.
func Canonical(be device.Backend) device.Backend { return canonicalBackend{be} }

type canonicalBackend struct{ device.Backend }

func (b canonicalBackend) Device(c ecc.ID, i int) (any, error) {
	if c != cdev.Curve {
		return b.Backend.Device(c, i)
	}
	d, err := cdev.Of(b.Backend, i)
	return canonicalDevice{d}, err
}

type canonicalDevice struct{ cdev.Device }

func (canonicalDevice) WantsCanonical() bool { return true }

// checkLifecycle starts s on a host without a backend (an error is fine,
// a panic is not), then a fresh stage on a CPU backend, and shuts it down.
func checkLifecycle(t testing.TB, typ string, s stages.Stage, f *stages.Factory, cfg stages.Config) {
	t.Helper()
	if _, ok := s.(stages.Starter); !ok {
		if st, ok := s.(stages.Stopper); ok {
			if err := st.Shutdown(context.Background()); err != nil {
				t.Errorf("%s: Shutdown: %v", typ, err)
			}
		}
		return
	}
	if err := safeStart(s, Host{N: 1}); err != nil && err.panicked {
		t.Errorf("%s: Start on a host lending no backend: %v", typ, err)
	}
	be, err := cpu.New(1)
	if err != nil {
		t.Errorf("%s: cpu backend: %v", typ, err)
		return
	}
	defer be.Close()
	s, err = f.New(cfg)
	if err != nil {
		t.Errorf("%s: New(default config) = %v, %v", typ, s, err)
		return
	}
	if err := safeStart(s, Host{B: be, N: 1}); err != nil {
		t.Errorf("%s: Start on a host lending a cpu backend: %v", typ, err)
		return
	}
	if st, ok := s.(stages.Stopper); ok {
		if err := st.Shutdown(context.Background()); err != nil {
			t.Errorf("%s: Shutdown: %v", typ, err)
		}
	}
}

type startError struct {
	err      error
	panicked bool
}

func (e *startError) Error() string {
	if e.panicked {
		return "panicked: " + e.err.Error()
	}
	return e.err.Error()
}

// safeStart starts s, turning a panic into an error that says so.
func safeStart(s stages.Stage, h stages.Host) (out *startError) {
	defer func() {
		if r := recover(); r != nil {
			out = &startError{err: fmt.Errorf("%v", r), panicked: true}
		}
	}()
	if err := s.(stages.Starter).Start(context.Background(), h); err != nil {
		return &startError{err: err}
	}
	return nil
}
