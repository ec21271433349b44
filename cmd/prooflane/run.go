package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/lockstats"
	"github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
)

func init() {
	register("run", command{summary: "run jobs of a pipeline (sim.* stages need no payload)", run: runRun})
}

func runRun(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("run", "PIPELINE", stderr)
	set := newSetFlag(fs, "the pipeline")
	partitions := fs.Int("partitions", 0, "partitions per job (default: the pipeline's partitions parameter)")
	jobs := fs.Int("jobs", 1, "jobs to run")
	inflight := fs.Int("inflight", 1, "jobs in flight at once")
	devices := fs.Int("devices", 0, "devices {gpu} expands to (default: the pipeline's devices)")
	progressMode := fs.String("progress", "auto", "progress line on stderr: auto (when a terminal), on, off")
	var tc pl.Config
	tc.RegisterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "partitions", "devices", "jobs", "inflight"); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "want exactly one pipeline (a file or an embedded name), got %d arguments", fs.NArg())
	}
	if *jobs < 1 || *inflight < 1 {
		return usageErrorf(fs, "--jobs and --inflight must be at least 1")
	}
	p, err := loadPayloadless(fs.Arg(0), set)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()

	tc.Attributes = append(tc.Attributes, semconv.KeyPipeline.String(p.Name),
		semconv.KeyPipelineFile.String(p.File), semconv.KeyPipelineHash.String(p.Hash),
		semconv.KeyBackend.String("sim"))
	prov, err := pl.Setup(ctx, tc)
	if err != nil {
		return err
	}
	defer finishTracing("run", prov, stderr, &err)

	perJob := p.Partitions
	if *partitions > 0 {
		perJob = *partitions
	}
	show, err := progressEnabled(*progressMode, stderr)
	if err != nil {
		return err
	}
	el, done, holds, err := runWithProgress(ctx, p, prov, *devices, *jobs, *inflight, perJob, show, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pipeline %q: %d jobs × %d partitions in %.2fs (%.2f partitions/s)\n",
		p.Name, done, perJob, el.Seconds(), float64(done*perJob)/el.Seconds())
	if err := holds.WriteTable(stdout, el); err != nil {
		return err
	}
	if w := prov.Where(); w != "" && tc.Exporter != pl.ExporterNone {
		fmt.Fprintf(stdout, "trace: %s\n", w)
	}
	return nil
}

// runWithProgress runs the jobs on an engine of p with a progress line
// and a log of lock holds, closes the engine, and returns the time they
// took and how many succeeded.
func runWithProgress(ctx context.Context, p *runtime.Pipeline, prov *pl.Provider, devices, jobs, inflight, perJob int, show bool, stderr io.Writer) (time.Duration, int, *holdLog, error) {
	pr := startProgress(stderr, p, perJob*jobs, show)
	holds := &holdLog{}
	onEvent := func(ev runtime.Event) {
		holds.Event(ev)
		pr.Event(ev)
	}
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: prov.TracerProvider(), Devices: devices, OnEvent: onEvent})
	if err != nil {
		pr.Stop()
		return 0, 0, nil, err
	}
	began := time.Now()
	done, err := runJobs(ctx, e, jobs, inflight, perJob)
	pr.Stop()
	el := time.Since(began)
	if cerr := e.Close(context.Background()); err == nil {
		err = cerr
	}
	return el, done, holds, err
}

// runJobs runs jobs payload-less jobs of perJob partitions on e, inflight
// at once, and returns how many succeeded and the first error.
func runJobs(ctx context.Context, e *runtime.Engine, jobs, inflight, perJob int) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(inflight)
	var mu sync.Mutex
	done := 0
	for j := 0; j < jobs; j++ {
		g.Go(func() error {
			_, err := e.Run(gctx, runtime.Job{ID: fmt.Sprintf("job-%d", j+1), Partitions: perJob})
			if err == nil {
				mu.Lock()
				done++
				mu.Unlock()
			}
			return err
		})
	}
	err := g.Wait()
	return done, err
}

// loadPayloadless loads a pipeline whose stages read no job payload: run
// gives jobs none.
func loadPayloadless(arg string, set setFlags) (*runtime.Pipeline, error) {
	p, err := loadPipeline(arg, set)
	if err != nil {
		return nil, err
	}
	for _, s := range p.Stages {
		if pay := s.Factory().Payload; pay != "" {
			return nil, fmt.Errorf("%s: stage %q (%s) needs a job payload, %s; run gives jobs none", p.File, s.Name, s.Type, pay)
		}
	}
	return p, nil
}

// finishTracing shuts tracing down at the end of a command. A trace file
// that could not be written whole fails the command (its output is
// incomplete), unless it failed already; a collector that did not take the
// spans is a warning.
func finishTracing(cmd string, prov *pl.Provider, stderr io.Writer, errp *error) {
	if err := shutdownTracing(cmd, prov, stderr); err != nil && *errp == nil {
		*errp = err
	}
}

// shutdownTracing flushes and stops tracing: it returns the error of a
// trace file that could not be written whole and warns of any other.
func shutdownTracing(cmd string, prov *pl.Provider, stderr io.Writer) error {
	err := prov.Shutdown(context.Background())
	if err == nil {
		return nil
	}
	var tfe *pl.TraceFileError
	if errors.As(err, &tfe) {
		return err
	}
	fmt.Fprintf(stderr, "prooflane %s: warning: %v\n", cmd, err)
	return nil
}

// holdLog keeps the lock holds a running engine reports, for the table
// run prints: the same figures (package lockstats) as analyze computes
// from the trace's lock_hold spans.
type holdLog struct {
	mu    sync.Mutex
	holds []lockstats.Hold
}

// Event is a runtime.Options.OnEvent hook.
func (l *holdLog) Event(ev runtime.Event) {
	if ev.Kind != runtime.LockReleased {
		return
	}
	l.mu.Lock()
	l.holds = append(l.holds, lockstats.Hold{Resource: ev.Resource, Capacity: ev.Capacity, Weight: ev.Weight,
		Granted: ev.Granted, Released: ev.Time, Wait: ev.Wait})
	l.mu.Unlock()
}

// WriteTable prints one row per lock and worker pool that was held, over
// a run of the given length.
func (l *holdLog) WriteTable(w io.Writer, window time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	stats, err := lockstats.Compute(l.holds, window)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nresources (%s)\n", lockstats.Legend)
	return lockstats.WriteTable(w, stats)
}
