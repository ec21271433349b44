package main

import (
	"fmt"
	"io"
	goruntime "runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/runtime/simulate"
)

func init() {
	register("simulate", command{
		summary: "predict throughput, GPU busy % and lock waits of a pipeline layout from a recorded trace, without a GPU",
		run:     runSimulate,
	})
}

func runSimulate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("simulate", "--from TRACE --pipeline PIPELINE", stderr)
	from := fs.String("from", "", "recorded trace `file` (trace.jsonl or a Jaeger JSON export) whose stage run times are replayed")
	pipeline := fs.String("pipeline", "", "the layout to predict: "+pipelineArgHelp)
	params := newSetFlag(fs, "the pipeline")
	speed := fs.Float64("speed", 10, "time compression: stages sleep recorded/speed (results are in real time)")
	jobs := fs.Int("jobs", 0, "jobs to run (default: as many as the trace has)")
	inFlight := fs.Int("inflight", 0, "jobs run at once (default: the most the trace ran at once)")
	deprecatedAlias(fs, "in-flight", "inflight", stderr)
	partitions := fs.Int("partitions", 0, "partitions per job (default: the trace's)")
	devices := fs.Int("devices", 0, "devices {gpu} expands to, and auto counts are sized for (default: the pipeline's devices)")
	cores := fs.Int("cores", 0, fmt.Sprintf("host cores auto counts are sized for (default: this machine's, %d)", goruntime.NumCPU()))
	seed := fs.Uint64("seed", 1, "seed for shuffling recorded durations")
	busy := fs.String("busy-stage", "", "count the runs of this stage name or type suffix as device busy, instead of the stages the trace declares busy (prooflane.device_busy)")
	gap := fs.Duration("gap", 10*time.Millisecond, "list device idle gaps longer than this (with -v)")
	verbose := fs.Bool("v", false, "also print the full analysis of the simulated run")
	traceOut := fs.String("trace-file", "", "write the simulated run's spans (in real time) to this `file` (OTLP JSON lines)")
	html := fs.String("html", "", "write an HTML timeline of the simulated run to this `file`")
	asJSON := fs.Bool("json", false, "print the prediction as one JSON document on stdout (schema in docs/json.md); -v is ignored")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "jobs", "inflight", "in-flight", "partitions", "devices", "cores"); err != nil {
		return err
	}
	if *pipeline == "" && fs.NArg() == 1 {
		*pipeline = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected arguments %q", fs.Args())
	}
	if *from == "" || *pipeline == "" {
		return usageErrorf(fs, "want --from TRACE and --pipeline PIPELINE (a file or an embedded name)")
	}
	// NaN passed the old "> 0" check and hung the replay; a factor near 0
	// makes every stage sleep for ages.
	if !(*speed >= 1e-3 && *speed <= 1e6) {
		return usageErrorf(fs, "--speed %v: want a factor between 0.001 and 1e6", *speed)
	}
	pfile, psrc, err := pipelineSource(*pipeline)
	if err != nil {
		return err
	}
	aopts := analyze.Options{BusyStage: *busy, MinGap: *gap}
	spans, before, err := readRecorded(*from, aopts, *speed, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	pred, err := simulate.Predict(ctx, spans, pfile, simulate.Options{
		Registry: shipped.stages(), Params: params, Speed: *speed, Jobs: *jobs, InFlight: *inFlight,
		Partitions: *partitions, Devices: *devices, Cores: *cores, Seed: *seed, Analyze: aopts, Source: psrc,
	})
	if err != nil {
		return err
	}
	return simulateOutputs{from: *from, pipeline: *pipeline, pfile: pfile, asJSON: *asJSON, verbose: *verbose,
		traceOut: *traceOut, html: *html}.write(before, pred, stdout, stderr)
}

// readRecorded reads and analyzes the recorded trace, saying on stderr how
// long a replay at speed takes when it is long (it runs in compressed real
// time).
func readRecorded(from string, aopts analyze.Options, speed float64, stderr io.Writer) ([]tracefile.Span, *analyze.Report, error) {
	spans, err := tracefile.Read(from)
	if err != nil {
		return nil, nil, err
	}
	before, err := analyze.Analyze(spans, aopts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", from, err)
	}
	if est := time.Duration(float64(before.Makespan) / speed); est > 5*time.Second {
		fmt.Fprintf(stderr, "replaying at speed %g: about %v (the recorded run took %v; Ctrl-C stops, a higher --speed compresses more)\n",
			speed, est.Round(time.Second), before.Makespan.Round(time.Second))
	}
	return spans, before, nil
}

// simulateOutputs are where simulate's prediction goes: stdout as a table
// or JSON (with -v the simulated run's analysis too), and the optional
// trace and HTML files.
type simulateOutputs struct {
	from, pipeline, pfile, traceOut, html string
	asJSON, verbose                       bool
}

func (o simulateOutputs) write(before *analyze.Report, pred *simulate.Prediction, stdout, stderr io.Writer) error {
	if o.asJSON {
		if err := writeJSON(stdout, predictionJSON(o.from, o.pfile, before, pred)); err != nil {
			return err
		}
	} else {
		writePrediction(stdout, o.from, o.pipeline, before, pred)
	}
	if o.verbose && !o.asJSON {
		fmt.Fprintln(stdout, "\nsimulated run:")
		if err := pred.Report.WriteText(stdout); err != nil {
			return err
		}
	}
	if o.traceOut != "" {
		if err := writeReportFile(o.traceOut, func(w io.Writer) error { return tracefile.Write(w, pred.Spans) }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", o.traceOut)
	}
	if o.html != "" {
		title := fmt.Sprintf("prooflane simulate: %s replaying %s", pred.Pipeline, o.from)
		if err := writeReportFile(o.html, func(w io.Writer) error { return pred.Report.WriteHTML(w, title) }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", o.html)
	}
	return nil
}

// writePrediction prints the recorded and predicted figures side by side.
func writePrediction(w io.Writer, from, pipeline string, before *analyze.Report, pred *simulate.Prediction) {
	after := pred.Report
	fmt.Fprintf(w, "prediction for %s (pipeline %q) replaying %s at %g× speed: %d job(s) × %d partitions, %d in flight\n",
		pipeline, pred.Pipeline, from, pred.Speed, pred.Jobs, pred.Partitions, pred.InFlight)
	fmt.Fprintf(w, "run times: %s\n", strings.Join(pred.Sources, "; "))
	for _, a := range pred.Auto {
		fmt.Fprintf(w, "%s\n", a)
	}
	fmt.Fprintln(w)
	rows := [][3]string{
		{"", "recorded", "predicted"},
		{"makespan (s)", fmt.Sprintf("%.3f", before.Makespan.Seconds()), fmt.Sprintf("%.3f", after.Makespan.Seconds())},
		{"proofs/min", fmt.Sprintf("%.2f", before.ProofsPerMinute), fmt.Sprintf("%.2f", after.ProofsPerMinute)},
		{"jobs/min", fmt.Sprintf("%.2f", before.JobsPerMinute), fmt.Sprintf("%.2f", after.JobsPerMinute)},
	}
	devs := map[int][2]string{}
	for i, r := range []*analyze.Report{before, after} {
		for _, d := range r.Devices {
			v := devs[d.Device]
			v[i] = fmt.Sprintf("%.1f%%", d.BusyPct)
			devs[d.Device] = v
		}
	}
	var ids []int
	for d := range devs {
		ids = append(ids, d)
	}
	sort.Ints(ids)
	for _, d := range ids {
		rows = append(rows, [3]string{fmt.Sprintf("gpu %d busy", d), dash(devs[d][0]), dash(devs[d][1])})
	}
	waits := map[string][2]string{}
	for i, r := range []*analyze.Report{before, after} {
		for _, x := range r.Resources {
			if x.Waits == 0 {
				continue
			}
			v := waits[x.Name]
			v[i] = fmt.Sprintf("%.3f", x.WaitTotal.Seconds())
			waits[x.Name] = v
		}
	}
	var names []string
	for n := range waits {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rows = append(rows, [3]string{fmt.Sprintf("wait %s (s)", n), dash(waits[n][0]), dash(waits[n][1])})
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t\n", width, r[0], r[1], r[2])
	}
	tw.Flush()
	for _, warn := range after.Warnings {
		fmt.Fprintf(w, "! %s\n", warn)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// simulateOutput is simulate --json (docs/json.md).
type simulateOutput struct {
	Trace        string     `json:"trace"`
	PipelineFile string     `json:"pipeline_file"`
	Pipeline     string     `json:"pipeline"`
	Speed        float64    `json:"speed"`
	Jobs         int        `json:"jobs"`
	Partitions   int        `json:"partitions"`
	InFlight     int        `json:"inflight"`
	Sources      []string   `json:"sources"`
	Recorded     runFigures `json:"recorded"`
	Predicted    runFigures `json:"predicted"`
	Warnings     []string   `json:"warnings"`
}

// runFigures are the figures simulate compares, for the recorded or the
// predicted run.
type runFigures struct {
	MakespanS     float64            `json:"makespan_s"`
	ProofsPerMin  float64            `json:"proofs_per_min"`
	JobsPerMin    float64            `json:"jobs_per_min"`
	DeviceBusyPct map[string]float64 `json:"device_busy_pct"`
	// LockWaitS is the total wait per lock that had any, in seconds.
	LockWaitS map[string]float64 `json:"lock_wait_s"`
}

func figuresOf(r *analyze.Report) runFigures {
	f := runFigures{MakespanS: r.Makespan.Seconds(), ProofsPerMin: r.ProofsPerMinute, JobsPerMin: r.JobsPerMinute,
		DeviceBusyPct: map[string]float64{}, LockWaitS: map[string]float64{}}
	for _, d := range r.Devices {
		f.DeviceBusyPct[fmt.Sprint(d.Device)] = d.BusyPct
	}
	for _, x := range r.Resources {
		if x.Waits > 0 {
			f.LockWaitS[x.Name] = x.WaitTotal.Seconds()
		}
	}
	return f
}

func predictionJSON(from, file string, before *analyze.Report, pred *simulate.Prediction) simulateOutput {
	return simulateOutput{
		Trace: from, PipelineFile: file, Pipeline: pred.Pipeline, Speed: pred.Speed,
		Jobs: pred.Jobs, Partitions: pred.Partitions, InFlight: pred.InFlight,
		Sources: append([]string{}, pred.Sources...), Recorded: figuresOf(before), Predicted: figuresOf(pred.Report),
		Warnings: append([]string{}, pred.Report.Warnings...),
	}
}
