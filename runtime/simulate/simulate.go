package simulate

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"golang.org/x/sync/errgroup"

	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/internal/suggest"
	"github.com/prooflane/prooflane/otel/analyze"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
)

// Options tune a prediction. Zero values take the recorded trace's figures.
type Options struct {
	// Registry holds the pipeline's real stage types: the pipeline is
	// validated against it and its stages' device binding and device
	// busy declarations come from it; only their runs are replayed.
	Registry *stages.Registry
	// Params override the pipeline's params (like --set).
	Params map[string]string
	// Speed compresses time: stages sleep recorded/Speed. Default 10.
	Speed float64
	// Jobs to run; default the number of jobs in the trace, at least 1.
	Jobs int
	// InFlight is how many jobs run at once; default the most jobs the
	// trace shows running at the same time.
	InFlight int
	// Partitions per job; default the recorded jobs' partition count,
	// unless Params sets "partitions", then the pipeline's.
	Partitions int
	// Devices overrides the pipeline's device count when above 0. The
	// pipeline is loaded for it, so its auto counts (`workers: auto`,
	// `capacity: auto`) are those of that many devices.
	Devices int
	// Cores, when above 0, is the host core count auto counts are sized
	// for, in place of this machine's: to predict a machine other than
	// the one simulating.
	Cores int
	// Seed shuffles the recorded durations.
	Seed uint64
	// Analyze tunes the analysis of the simulated run.
	Analyze analyze.Options
	// Source, when set, is the pipeline's YAML, and path only names it in
	// problems (an embedded pipeline); otherwise path is read.
	Source []byte
}

// Prediction is the analysed simulated run, in real (uncompressed) time.
type Prediction struct {
	Pipeline   string
	Jobs       int
	InFlight   int
	Partitions int
	Speed      float64
	// Sources says where each stage's durations came from: "stage
	// synthesize: 16 runs", "stage msm: 16 runs of type groth16.msm".
	Sources []string
	// Auto lists the counts the pipeline left to auto, as sized for the
	// devices and cores predicted.
	Auto   []runtime.AutoValue
	Report *analyze.Report
	Spans  []tracefile.Span
}

// Predict replays the stage durations of a recorded trace through the
// pipeline at path and analyses the result.
func Predict(ctx context.Context, trace []tracefile.Span, path string, opts Options) (*Prediction, error) {
	if opts.Registry == nil {
		return nil, fmt.Errorf("simulate: no stage registry")
	}
	if opts.Speed <= 0 {
		opts.Speed = 10
	}
	// The pipeline as written, validated against the real stage types, so
	// errors point into the user's file and every stage's device binding
	// is the one its type and config give it.
	src := opts.Source
	if src == nil {
		var err error
		if src, err = regfile.ReadFile(path, runtime.MaxPipelineBytes); err != nil {
			return nil, fmt.Errorf("load pipeline: %w", err)
		}
	}
	orig, err := runtime.ParseWith(path, src, opts.Registry, runtime.LoadOptions{Params: opts.Params, Devices: opts.Devices, Cores: opts.Cores})
	if err != nil {
		return nil, err
	}
	rec := recorded(trace, opts.Seed)
	if err := checkLongest(rec.longest, opts.Speed); err != nil {
		return nil, err
	}
	rp := &replay{pools: map[string]*pool{}, speed: opts.Speed}
	rp.late.Store(int64(timerOvershoot()))
	pred := &Prediction{Pipeline: orig.Name, Speed: opts.Speed, Auto: orig.Auto}
	var missing []string
	for _, s := range orig.Stages {
		switch {
		case rec.byName[s.Name] != nil:
			rp.pools[s.Name] = rec.byName[s.Name]
			pred.Sources = append(pred.Sources, fmt.Sprintf("stage %s: %d recorded runs", s.Name, len(rec.byName[s.Name].d)))
		case rec.byType[s.Type] != nil:
			rp.pools[s.Name] = rec.byType[s.Type]
			pred.Sources = append(pred.Sources, fmt.Sprintf("stage %s: %d recorded runs of type %s", s.Name, len(rec.byType[s.Type].d), s.Type))
		default:
			missing = append(missing, s.Name)
		}
	}
	if len(missing) > 0 {
		return nil, missingError(missing, orig, rec)
	}
	p := orig
	jobs, inFlight, parts := recordedLoad(trace)
	pred.Jobs, pred.InFlight, pred.Partitions = pick(opts.Jobs, jobs, 1), pick(opts.InFlight, inFlight, 1), pick(opts.Partitions, parts, p.Partitions)
	if _, set := opts.Params["partitions"]; set && opts.Partitions == 0 {
		pred.Partitions = p.Partitions
	}
	pred.InFlight = min(pred.InFlight, pred.Jobs)

	sr := tracetest.NewSpanRecorder()
	// The spans name the pipeline's own stage types; the resource says
	// the runs were replays.
	res := resource.NewSchemaless(attribute.String("service.name", "prooflane-simulate"), pl.KeyPipeline.String(p.Name),
		pl.KeyBackend.String("replay"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr), sdktrace.WithResource(res))
	// Every stage keeps its place in the layout (needs, locks, workers,
	// spans, device binding as its config decided) and runs the replay.
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: tp, Devices: opts.Devices,
		Replace: func(*runtime.Stage) (stages.Stage, error) { return rp, nil }})
	if err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(pred.InFlight)
	for i := range pred.Jobs {
		g.Go(func() error {
			_, err := e.Run(gctx, runtime.Job{ID: fmt.Sprintf("sim-%d", i+1), Partitions: pred.Partitions})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	if err := tp.Shutdown(ctx); err != nil {
		return nil, err
	}
	pred.Spans = stretch(tracefile.FromSDK(sr.Ended()), opts.Speed)
	if pred.Report, err = analyze.Analyze(pred.Spans, opts.Analyze); err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	return pred, nil
}

// maxReplaySleep bounds one replayed stage's sleep: a longer one is almost
// always a broken span (a clock jump, a hand-edited end) and would make the
// simulation sleep for as long, silently.
const maxReplaySleep = time.Hour

// checkLongest refuses the longest replayed stage span (nil when there is
// none) when it would sleep longer than maxReplaySleep at speed.
func checkLongest(longest *tracefile.Span, speed float64) error {
	if longest == nil {
		return nil
	}
	d := longest.Duration()
	if float64(d)/speed <= float64(maxReplaySleep) {
		return nil
	}
	return fmt.Errorf("simulate: stage %q of job %q partition %d ran %v in the trace (%s to %s): replaying it would sleep %v at speed %v, over the %v limit; is that span's end wrong? (--speed compresses time)",
		longest.Name, longest.Str(string(pl.KeyJob)), longest.IntOr(string(pl.KeyPartition), -1), d,
		longest.Start.Format(time.RFC3339Nano), longest.End.Format(time.RFC3339Nano),
		time.Duration(float64(d)/speed).Round(time.Second), speed, maxReplaySleep)
}

func pick(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

func missingError(missing []string, p *runtime.Pipeline, rec *durations) error {
	var have []string
	for n := range rec.byName {
		have = append(have, n)
	}
	sort.Strings(have)
	var parts []string
	for _, m := range missing {
		msg := fmt.Sprintf("%q", m)
		if s := suggest.Closest(m, have); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		parts = append(parts, msg)
	}
	return fmt.Errorf("pipeline %q: no recorded runs in the trace for stage %s, by name or type (the trace has: %s)",
		p.Name, strings.Join(parts, ", "), strings.Join(have, ", "))
}

// recordedLoad reads the job count, the most jobs in flight at once and
// the partitions of the first job from a trace's job spans.
func recordedLoad(trace []tracefile.Span) (jobs, inFlight, partitions int) {
	type edge struct {
		t     time.Time
		delta int
	}
	var edges []edge
	for i := range trace {
		s := &trace[i]
		if s.Str(string(pl.KeyKind)) != pl.KindJob {
			continue
		}
		jobs++
		if partitions == 0 {
			partitions = int(s.IntOr(string(pl.KeyPartitions), 0))
		}
		edges = append(edges, edge{s.Start, 1}, edge{s.End, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if !edges[i].t.Equal(edges[j].t) {
			return edges[i].t.Before(edges[j].t)
		}
		return edges[i].delta < edges[j].delta // an end before a start at the same instant
	})
	cur := 0
	for _, e := range edges {
		cur += e.delta
		inFlight = max(inFlight, cur)
	}
	return jobs, inFlight, partitions
}

// stretch undoes the time compression: every instant moves away from the
// first span's start by a factor speed, and the recorded wait and hold
// times scale with it.
func stretch(spans []tracefile.Span, speed float64) []tracefile.Span {
	if len(spans) == 0 {
		return spans
	}
	origin := spans[0].Start
	for _, s := range spans {
		if s.Start.Before(origin) {
			origin = s.Start
		}
	}
	at := func(t time.Time) time.Time { return origin.Add(time.Duration(float64(t.Sub(origin)) * speed)) }
	for i := range spans {
		s := &spans[i]
		s.Start, s.End = at(s.Start), at(s.End)
		for j := range s.Events {
			s.Events[j].Time = at(s.Events[j].Time)
		}
		for _, k := range []attribute.Key{pl.KeyWaitMS, pl.KeyHoldMS} {
			if f, ok := s.Float(string(k)); ok {
				s.Attrs[string(k)] = f * speed
			}
		}
	}
	return spans
}
