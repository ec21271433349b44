package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("prove", command{summary: "prove a job of a proof family (" + familyList() + ") with a pipeline and write the proofs", run: runProve})
}

// proveFlags are prove's flags.
type proveFlags struct {
	cf                     circuitFlags
	pipeline, out, backend string
	progress               string
	partitions, devices    int
	seed                   uint64
	set                    setFlags
	tc                     pl.Config
}

func newProveFlags(stderr io.Writer) (*flag.FlagSet, *proveFlags) {
	fs := newFlags("prove", "", stderr)
	f := &proveFlags{set: newSetFlag(fs, "the pipeline")}
	f.cf.register(fs)
	fs.StringVar(&f.pipeline, "pipeline", "groth16", pipelineArgHelp)
	fs.IntVar(&f.partitions, "partitions", 0, "partitions, each with its own witness (default: the pipeline's partitions parameter)")
	fs.StringVar(&f.out, "out", "", "directory for the proofs, public inputs, manifest and trace (required); it is replaced as a whole once the run has succeeded, so it holds one complete run")
	fs.Uint64Var(&f.seed, "seed", 1, "witness seed; partition p proves the witness of a seed derived from it and p")
	fs.IntVar(&f.devices, "devices", 0, "devices to run on (default: the pipeline's devices)")
	fs.StringVar(&f.backend, "backend", "cpu", backendHelp)
	fs.StringVar(&f.progress, "progress", "auto", "progress line on stderr: auto (when a terminal), on, off")
	f.tc.RegisterFlags(fs)
	if tf := fs.Lookup("trace-file"); tf != nil {
		// prove writes the trace next to the proofs unless told otherwise.
		tf.Usage, tf.DefValue = "trace file of --trace file, OTLP JSON lines (default: trace.jsonl in the --out directory)", ""
	}
	return fs, f
}

// parse parses and checks the flags on their own.
func (f *proveFlags) parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "partitions", "devices"); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "prove takes no arguments, got %q", fs.Args())
	}
	if f.out == "" {
		return usageErrorf(fs, "--out is required")
	}
	if err := checkBackend(f.backend); err != nil {
		return err
	}
	if f.partitions > 0 {
		f.set["partitions"] = fmt.Sprint(f.partitions)
	}
	return nil
}

// traceIn is the trace file's name inside --out, "" when --trace-file
// puts it elsewhere: the trace goes with the run when it is inside --out
// (by default).
func (f *proveFlags) traceIn(fs *flag.FlagSet) string {
	if !flagGiven(fs, "trace-file") {
		return pl.DefaultFile
	}
	absOut, err1 := filepath.Abs(f.out)
	absTrace, err2 := filepath.Abs(f.tc.File)
	if err1 == nil && err2 == nil && filepath.Dir(absTrace) == absOut {
		return filepath.Base(absTrace)
	}
	return ""
}

// proveRun is one prove: the pipeline, its family's key and job, the
// backend, and the output directory being written.
type proveRun struct {
	f          *proveFlags
	p          *runtime.Pipeline
	fp         family.Prover
	key        family.Key
	job        family.Job
	be         device.Backend
	od         *outDir
	size, nDev int
}

func runProve(args []string, stdout, stderr io.Writer) (err error) {
	quietGnark()
	fs, f := newProveFlags(stderr)
	if err := f.parse(fs, args); err != nil {
		return err
	}
	r := &proveRun{f: f}
	if r.p, err = loadPipeline(f.pipeline, f.set); err != nil {
		return err
	}
	if r.fp, err = proofFamily(r.p); err != nil {
		return err
	}
	req, err := f.cf.request(fs, r.p, r.fp)
	if err != nil {
		return err
	}
	r.size, r.nDev = req.Size, r.p.Devices
	if f.devices > 0 {
		r.nDev = f.devices
	}
	// Cheap checks first: the key setup below can take minutes.
	show, err := progressEnabled(f.progress, stderr)
	if err != nil {
		return err
	}
	traceIn := f.traceIn(fs)
	if r.od, err = openOut(f.out, traceIn, stderr); err != nil {
		return err
	}
	defer r.od.close(stderr)
	// Memory follows the partitions in flight, which max_in_flight bounds.
	req.OnDevice = f.backend == "cuda"
	if set, note := oneJob(r.fp, r.p, f.set, req.OnDevice); note != "" {
		f.set = set
		if r.p, err = loadPipeline(f.pipeline, f.set); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "prooflane prove: %s\n", note)
	}
	if err := checkHostMemory(stderr, "prove", r.fp, req, []map[string]string{r.p.Params}, min(r.p.Partitions, r.p.InFlight(r.nDev))); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	reload := func(override map[string]string) error {
		set := maps.Clone(f.set)
		maps.Copy(set, override)
		p, err := loadPipeline(f.pipeline, set)
		if err == nil {
			r.p = p
		}
		return err
	}
	printAuto(stderr, "prove", r.p, r.nDev)
	if r.key, r.be, r.job, err = openJob(ctx, "prove", r.fp, req, r.p.Partitions, f.seed, f.backend, r.nDev,
		planOf([]*runtime.Pipeline{r.p}, min(r.p.Partitions, r.p.InFlight(r.nDev)), r.nDev, f.set, reload), stderr); err != nil {
		return err
	}
	defer r.be.Close()
	if traceIn != "" {
		f.tc.File = r.od.path(traceIn)
	}
	return r.run(ctx, show, stdout, stderr)
}

// oneJob is set with the params fp's pipelines take for a run of p's one
// job (its partitions) on a device (family.OneJober) when the user set
// none of them and p declares them all, and the line that says so; set
// and "" otherwise.
func oneJob(fp family.Prover, p *runtime.Pipeline, set map[string]string, onDevice bool) (map[string]string, string) {
	oj, ok := fp.(family.OneJober)
	if !ok || !onDevice {
		return set, ""
	}
	params, why := oj.OneJob(p.Partitions)
	if !canSet(params, devicePlan{params: []map[string]string{p.Params}, set: set}) {
		return set, ""
	}
	out := maps.Clone(set)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, params)
	return out, fmt.Sprintf("%s for one job: %s", setFlagsString(params), why)
}

// run proves the job with the trace on, writes the run's files and
// commits the output directory.
func (r *proveRun) run(ctx context.Context, show bool, stdout, stderr io.Writer) (err error) {
	prov, err := pl.Setup(ctx, r.traceConfig())
	if err != nil {
		return err
	}
	// The trace is flushed before the run is committed (it is part of
	// it: a trace file that could not be written fails the run), or on
	// the way out of a failed run.
	var flushed bool
	flush := func() error {
		if flushed {
			return nil
		}
		flushed = true
		return shutdownTracing("prove", prov, stderr)
	}
	defer func() {
		if ferr := flush(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	res, el, err := r.prove(ctx, prov, show, stderr)
	if err != nil {
		return err
	}
	m, err := r.write(res, el)
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if err := r.od.commit(); err != nil {
		return fmt.Errorf("--out %q: %w", r.f.out, err)
	}
	fmt.Fprintf(stdout, "%d proofs of %s (size %d, %d constraints) with pipeline %q in %.2fs: %.1f proofs/min; written to %s\n",
		m.Partitions, m.Circuit, m.Size, m.Constraints, r.p.Name, el.Seconds(), float64(m.Partitions)/el.Minutes(), r.f.out)
	return nil
}

// traceConfig is the trace's configuration with the run's attributes.
func (r *proveRun) traceConfig() pl.Config {
	tc := r.f.tc
	tc.Attributes = append(tc.Attributes,
		attribute.String("prooflane.pipeline", r.p.Name),
		attribute.String("prooflane.pipeline_file", r.p.File),
		semconv.KeyPipelineHash.String(r.p.Hash),
		semconv.KeyBackend.String(r.be.Name()),
		attribute.Int("prooflane.devices", r.nDev),
		attribute.StringSlice("prooflane.device_names", deviceNames(r.be, r.nDev)),
		attribute.String("prooflane.circuit", r.key.Circuit()),
		attribute.Int("prooflane.size", r.size))
	return tc
}

// prove runs the job on an engine lent the backend, and closes the engine.
func (r *proveRun) prove(ctx context.Context, prov *pl.Provider, show bool, stderr io.Writer) (*runtime.Result, time.Duration, error) {
	nParts := r.p.Partitions
	pr := startProgress(stderr, r.p, nParts, show)
	e, err := runtime.NewEngine(r.p, runtime.Options{Tracer: prov.TracerProvider(), Devices: r.nDev, OnEvent: pr.Event, Backend: r.be})
	if err != nil {
		pr.Stop()
		return nil, 0, err
	}
	began := time.Now()
	res, err := e.Run(ctx, runtime.Job{ID: fmt.Sprintf("%s-%d", r.key.Circuit(), r.size), Partitions: nParts, Payload: r.job.Payload()})
	el := time.Since(began)
	pr.Stop()
	// The engine goes before the backend it was lent.
	if cerr := e.Close(context.Background()); err == nil {
		err = cerr
	}
	return res, el, err
}

// write writes the run's proof files and its manifest into the output
// directory.
func (r *proveRun) write(res *runtime.Result, el time.Duration) (manifest, error) {
	m := manifest{
		Family: r.fp.Name(), Key: r.key.Name(),
		Circuit: r.key.Circuit(), Size: r.size, Constraints: r.key.Constraints(), Partitions: r.p.Partitions, Seed: r.f.seed,
		Pipeline: r.p.Name, PipelineFile: r.p.File, PipelineSHA256: r.p.Hash, Backend: r.be.Name(), Devices: r.nDev,
		Seconds: el.Seconds(),
	}
	parts, err := proofFiles(r.p, r.fp, r.job, res)
	if err != nil {
		return m, err
	}
	vk, err := r.job.VK()
	if err != nil {
		return m, err
	}
	return m, writeRun(r.od, r.fp, &m, vk, parts)
}

// proofFiles returns each partition's files, from the output of the
// pipeline's final proof stage, each checked by the job's verifier when
// that stage did not check its proof (family.StagesVerify): no proof that
// does not verify is written.
func proofFiles(p *runtime.Pipeline, fp family.Prover, job family.Job, res *runtime.Result) ([]family.Files, error) {
	final := family.FinalProofStages(p, fp)
	verified := family.StagesVerify(p, fp)
	parts := make([]family.Files, len(res.Partitions))
	for _, r := range res.Partitions {
		out, ok := r.Outputs[final[0]]
		if !ok {
			return nil, fmt.Errorf("partition %d: pipeline %q produced no %s proof (outputs %v)", r.Index, p.Name, fp.Name(), keysOf(r.Outputs))
		}
		files, err := job.Files(r.Index, out)
		if err != nil {
			return nil, err
		}
		if !verified {
			if err := job.Verify(r.Index, files); err != nil {
				return nil, fmt.Errorf("partition %d: %w: the proof is not written", r.Index, err)
			}
		}
		parts[r.Index] = files
	}
	return parts, nil
}

// writeBytes is outDir.writeFile's writer of data.
func writeBytes(data []byte) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		n, err := w.Write(data)
		return int64(n), err
	}
}

// checkBackend checks a --backend value.
func checkBackend(name string) error {
	switch name {
	case "cpu", "cuda", "auto":
		return nil
	}
	return fmt.Errorf("--backend %q: want cpu, cuda or auto", name)
}

// openBackend opens the device backend for n devices; cmd names the
// command in the message of an auto fall back to the CPU.
func openBackend(cmd, name string, n int, stderr io.Writer) (device.Backend, error) {
	if name == "cpu" {
		return cpu.New(n)
	}
	be, err := devcuda.New()
	if err == nil && len(be.Devices()) < n {
		be.Close()
		err = fmt.Errorf("cuda backend: %d devices wanted, %d present: %w", n, len(be.Devices()), device.ErrNoDevice)
	}
	if err != nil {
		if name == "cuda" {
			return nil, err
		}
		fmt.Fprintf(stderr, "prooflane %s: %v; using the cpu backend\n", cmd, err)
		return cpu.New(n)
	}
	return be, nil
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// deviceNames names the first n devices of a backend, for traces.
func deviceNames(be device.Backend, n int) []string {
	var names []string
	for _, d := range be.Devices() {
		if len(names) == n {
			break
		}
		names = append(names, d.Name)
	}
	return names
}
