package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/sync/errgroup"

	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/runtime"
)

func init() {
	register("run", command{summary: "run jobs of a pipeline (sim.* stages need no payload)", run: runRun})
}

func runRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "PIPELINE", stderr)
	set := setFlags{}
	fs.Var(set, "set", "override a pipeline parameter, name=value (repeatable)")
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
	p, err := loadPipeline(fs.Arg(0), set)
	if err != nil {
		return err
	}
	for _, s := range p.Stages {
		if pay := s.Factory().Payload; pay != "" {
			return fmt.Errorf("%s: stage %q (%s) needs a job payload, %s; run gives jobs none", p.File, s.Name, s.Type, pay)
		}
	}
	ctx, stop := signalContext()
	defer stop()

	tc.Attributes = append(tc.Attributes, attribute.String("prooflane.pipeline", p.Name),
		attribute.String("prooflane.pipeline_file", p.File), attribute.String("prooflane.pipeline_sha256", p.Hash),
		pl.KeyBackend.String("sim"))
	prov, err := pl.Setup(ctx, tc)
	if err != nil {
		return err
	}
	defer func() {
		if err := prov.Shutdown(context.Background()); err != nil {
			fmt.Fprintf(stderr, "prooflane run: warning: %v\n", err)
		}
	}()

	perJob := p.Partitions
	if *partitions > 0 {
		perJob = *partitions
	}
	show, err := progressEnabled(*progressMode, stderr)
	if err != nil {
		return err
	}
	pr := startProgress(stderr, p, perJob**jobs, show)
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: prov.TracerProvider(), Devices: *devices, OnEvent: pr.Event})
	if err != nil {
		pr.Stop()
		return err
	}
	began := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(*inflight)
	var mu sync.Mutex
	done := 0
	for j := 0; j < *jobs; j++ {
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
	err = g.Wait()
	pr.Stop()
	el := time.Since(began)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pipeline %q: %d jobs × %d partitions in %.2fs (%.2f partitions/s)\n",
		p.Name, done, perJob, el.Seconds(), float64(done*perJob)/el.Seconds())
	writeResourceStats(stdout, e)
	if w := prov.Where(); w != "" && tc.Exporter != pl.ExporterNone {
		fmt.Fprintf(stdout, "trace: %s\n", w)
	}
	return nil
}

// writeResourceStats prints one row per lock and worker pool that was used.
func writeResourceStats(w io.Writer, e *runtime.Engine) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "resource\tcapacity\tutil\tgrants\tcontended\tmean wait\tmax wait\t")
	for _, st := range e.Stats() {
		if st.Acquisitions == 0 {
			continue
		}
		mean := time.Duration(0)
		if st.Acquisitions > 0 {
			mean = st.Wait / time.Duration(st.Acquisitions)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f%%\t%d\t%d\t%s\t%s\t\n", st.Name, st.Capacity, 100*st.Utilization(),
			st.Acquisitions, st.Contended, mean.Round(time.Microsecond), st.MaxWait.Round(time.Microsecond))
	}
	tw.Flush()
}
