package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/prooflane/prooflane/device"
	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/proving"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("prove", command{summary: "prove your own circuit's witnesses (--ccs, --witness) or a built-in circuit's job with a pipeline of a proof family (" + familyList() + "), and write the verified proofs", run: runProve})
}

// proveFlags are prove's flags.
type proveFlags struct {
	cf                     circuitFlags
	pk, vk                 string
	witnesses              filesFlag
	pipeline, out, backend string
	progress               string
	partitions, devices    int
	seed                   uint64
	set                    setFlags
	tc                     pl.Config
	hashArg                string
	hash                   family.CommitmentHash
}

func newProveFlags(stderr io.Writer) (*flag.FlagSet, *proveFlags) {
	fs := newFlags("prove", "", stderr)
	f := &proveFlags{set: newSetFlag(fs, "the pipeline")}
	f.cf.register(fs)
	f.cf.registerCCS(fs)
	fs.Var(&f.witnesses, "witness", "FILE: a full witness of the --ccs circuit (gnark's witness MarshalBinary: public and secret inputs); one partition each, in order; repeat it")
	fs.StringVar(&f.pk, "pk", "", "FILE: your own proving key for --ccs (gnark's WriteTo), with --vk; default: the key cache's, made on first use")
	fs.StringVar(&f.vk, "vk", "", "FILE: your own verifying key for --ccs (gnark's WriteTo), with --pk")
	fs.StringVar(&f.pipeline, "pipeline", "groth16", pipelineArgHelp)
	fs.IntVar(&f.partitions, "partitions", 0, "partitions, each with its own witness (default: the pipeline's partitions parameter)")
	fs.StringVar(&f.out, "out", "", "directory for the proofs, public inputs, manifest and trace (required); it is replaced as a whole once the run has succeeded, so it holds one complete run")
	fs.Uint64Var(&f.seed, "seed", 1, "witness seed; partition p proves the witness of a seed derived from it and p")
	fs.IntVar(&f.devices, "devices", 0, "devices to run on (default: the pipeline's devices)")
	fs.StringVar(&f.backend, "backend", "cpu", backendHelp)
	fs.StringVar(&f.progress, "progress", "auto", "progress line on stderr: auto (when a terminal), on, off")
	fs.StringVar(&f.hashArg, "commitment-hash", string(family.RFC9380), "groth16: the hash of a circuit's commitment (api.Commit, std/rangecheck, std/math/emulated...) to a field element: rfc9380 (gnark's default) or keccak256 (gnark's Solidity verifier's: export solidity --commitment-hash keccak256)")
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
	var err error
	if f.hash, err = family.ParseCommitmentHash(f.hashArg); err != nil {
		return usageErrorf(fs, "--commitment-hash: %v", err)
	}
	if err := f.checkUserFlags(fs); err != nil {
		return err
	}
	if f.partitions > 0 {
		f.set["partitions"] = fmt.Sprint(f.partitions)
	}
	return nil
}

// checkUserFlags checks the flags of a user's own circuit: --ccs with at
// least one --witness (their count is the partitions), --pk and --vk
// together, and none of the built-in circuit's flags.
func (f *proveFlags) checkUserFlags(fs *flag.FlagSet) error {
	switch {
	case f.cf.ccs == "" && (len(f.witnesses) > 0 || f.pk != "" || f.vk != ""):
		return usageErrorf(fs, "--witness, --pk and --vk are for your own circuit: give its constraint system with --ccs")
	case f.cf.ccs == "":
		return nil
	case len(f.witnesses) == 0:
		return usageErrorf(fs, "--ccs: give the witnesses to prove with --witness FILE (one partition each)")
	case (f.pk == "") != (f.vk == ""):
		return usageErrorf(fs, "--pk and --vk go together: your own keys, or neither for the key cache's")
	case flagGiven(fs, "seed"):
		return usageErrorf(fs, "--seed: a built-in circuit's witnesses come from a seed; --ccs proves your --witness files")
	case flagGiven(fs, "partitions") && f.partitions != len(f.witnesses):
		return usageErrorf(fs, "--partitions %d: --ccs proves one partition a --witness, %d", f.partitions, len(f.witnesses))
	}
	if len(f.witnesses) > runtime.MaxPartitions {
		return usageErrorf(fs, "%d --witness files: at most %d", len(f.witnesses), runtime.MaxPartitions)
	}
	f.partitions = len(f.witnesses)
	return nil
}

// source is what prove proves: a built-in circuit's job of the
// pipeline's partitions from --seed; or the user's constraint system
// (--ccs) with their witnesses (--witness), each read and checked against
// the system before anything runs (a wrong length, or bytes that are not
// a witness, refused naming the file and its index), and their keys
// (--pk, --vk: read and checked against the system when the key is
// opened) or the key cache's.
func (f *proveFlags) source(ctx context.Context, fs *flag.FlagSet, p *runtime.Pipeline, fp family.Prover) (jobSource, error) {
	req, err := f.cf.request(ctx, fs, p, fp)
	if err != nil {
		return jobSource{}, err
	}
	src := jobSource{req: req, seed: f.seed, pk: f.pk, vk: f.vk}
	if f.cf.ccs == "" {
		return src, nil
	}
	in := fp.Inputs(req.System.CCS)
	field := req.System.CCS.Field()
	for i, path := range f.witnesses {
		w, err := family.ReadWitness(ctx, path, i, field, in)
		if err != nil {
			return jobSource{}, fmt.Errorf("--witness: %w", err)
		}
		src.witnesses = append(src.witnesses, w)
	}
	return src, nil
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
	f    *proveFlags
	p    *runtime.Pipeline
	fp   family.Prover
	key  family.Key
	job  family.Job
	be   device.Backend
	od   *outDir
	nDev int
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
	pp, err := proofFamily(r.p)
	if err != nil {
		return err
	}
	r.fp = pp.Family
	if err := checkCommitmentHash(fs, r.fp, r.p, f.hash); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	src, err := f.source(ctx, fs, r.p, r.fp)
	if err != nil {
		return err
	}
	req := src.req
	r.nDev = r.p.Devices
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
	req.OnDevice = ownMemory(f.backend)
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
	src.req, src.n = req, r.p.Partitions
	if r.key, r.be, r.job, err = openJob(ctx, "prove", r.fp, src, f.backend, r.nDev,
		planOf([]*runtime.Pipeline{r.p}, min(r.p.Partitions, r.p.InFlight(r.nDev)), r.nDev, f.set, reload), stderr); err != nil {
		return err
	}
	defer r.be.Close()
	if traceIn != "" {
		f.tc.File = r.od.path(traceIn)
	}
	return r.run(ctx, show, stdout, stderr)
}

// checkCommitmentHash refuses a --commitment-hash other than the default
// when p's family fp does not take it, naming the families that do.
func checkCommitmentHash(fs *flag.FlagSet, fp family.Prover, p *runtime.Pipeline, h family.CommitmentHash) error {
	if family.TakesCommitmentHash(fp, h) {
		return nil
	}
	var takers []string
	for _, o := range provers() {
		if family.TakesCommitmentHash(o, h) {
			takers = append(takers, o.Name())
		}
	}
	return usageErrorf(fs, "--commitment-hash %s: pipeline %q makes %s proofs, which hash their commitments with %s only; %s pipelines take it",
		h, p.Name, fp.Name(), family.RFC9380, strings.Join(takers, ", "))
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
		attribute.String("prooflane.circuit", r.key.System().Name),
		attribute.Int("prooflane.size", r.key.System().Size))
	return tc
}

// prove runs the job on an engine lent the backend, and closes the engine.
func (r *proveRun) prove(ctx context.Context, prov *pl.Provider, show bool, stderr io.Writer) (*runtime.Result, time.Duration, error) {
	if err := family.SetCommitmentHash(r.job, r.f.hash); err != nil {
		return nil, 0, err
	}
	nParts := r.p.Partitions
	pr := startProgress(stderr, r.p, nParts, show)
	e, err := runtime.NewEngine(r.p, runtime.Options{Tracer: prov.TracerProvider(), Devices: r.nDev, OnEvent: pr.Event, Backend: r.be})
	if err != nil {
		pr.Stop()
		return nil, 0, err
	}
	began := time.Now()
	res, err := e.Run(ctx, runtime.Job{ID: fmt.Sprintf("%s-%d", r.key.System().Name, r.key.System().Size), Partitions: nParts, Payload: r.job.Payload()})
	el := time.Since(began)
	pr.Stop()
	// The engine goes before the backend it was lent.
	if cerr := e.Close(context.Background()); err == nil {
		err = cerr
	}
	return res, el, err
}

// write writes the run's proof files and its manifest into the output
// directory: each proof checked once (proving.Pipeline.Files), none
// written that does not verify.
func (r *proveRun) write(res *runtime.Result, el time.Duration) (manifest, error) {
	sys := r.key.System()
	m := manifest{
		Family: r.fp.Name(), Key: r.key.Name(), Curve: curveField(sys.Curve), CommitmentHash: hashField(r.f.hash),
		Circuit: sys.Name, Size: sys.Size, Constraints: r.key.Constraints(), Partitions: r.p.Partitions, Seed: r.f.seed,
		Pipeline: r.p.Name, PipelineFile: r.p.File, PipelineSHA256: r.p.Hash, Backend: r.be.Name(), Devices: r.nDev,
		Seconds: el.Seconds(), Witnesses: r.f.witnesses,
	}
	if family.IsCompiled(sys.Name) {
		m.Seed, m.CCS = 0, r.f.cf.ccs
	}
	pp, err := proving.Resolve(r.p, shipped.families())
	if err != nil {
		return m, err
	}
	parts, err := pp.Files(r.job, res)
	if err != nil {
		if r.f.pk != "" {
			err = fmt.Errorf("%w (with --pk %s and --vk %s: keys of another circuit or of two setups make proofs that do not verify)", err, r.f.pk, r.f.vk)
		}
		return m, fmt.Errorf("%w: the proof is not written", err)
	}
	return m, writeRun(r.od, r.fp, &m, r.key.VerifyingKey().Bytes(), parts)
}

// writeBytes is outDir.writeFile's writer of data.
func writeBytes(data []byte) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		n, err := w.Write(data)
		return int64(n), err
	}
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
