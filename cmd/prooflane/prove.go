package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"go.opentelemetry.io/otel/attribute"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

func init() {
	register("prove", command{summary: "prove a job of a proof family (groth16, vcommit) with a pipeline and write the proofs", run: runProve})
}

func runProve(args []string, stdout, stderr io.Writer) (err error) {
	quietGnark()
	fs := newFlags("prove", "", stderr)
	var cf circuitFlags
	cf.register(fs)
	pipeline := fs.String("pipeline", "groth16", pipelineArgHelp)
	partitions := fs.Int("partitions", 0, "partitions, each with its own witness (default: the pipeline's partitions parameter)")
	out := fs.String("out", "", "directory for the proofs, public inputs, manifest and trace (required); it is replaced as a whole once the run has succeeded, so it holds one complete run")
	seed := fs.Uint64("seed", 1, "witness seed; partition p proves the witness of a seed derived from it and p")
	devices := fs.Int("devices", 0, "devices to run on (default: the pipeline's devices)")
	backend := fs.String("backend", "cpu", "device backend: cpu (gnark-crypto, emulated devices), cuda (needs a -tags cuda build and a GPU), or auto (cuda when available, else cpu)")
	progressMode := fs.String("progress", "auto", "progress line on stderr: auto (when a terminal), on, off")
	set := setFlags{}
	fs.Var(set, "set", "override a pipeline parameter, name=value (repeatable)")
	var tc pl.Config
	tc.RegisterFlags(fs)
	if f := fs.Lookup("trace-file"); f != nil {
		// prove writes the trace next to the proofs unless told otherwise.
		f.Usage, f.DefValue = "trace file of --trace file, OTLP JSON lines (default: trace.jsonl in the --out directory)", ""
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "partitions", "devices"); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "prove takes no arguments, got %q", fs.Args())
	}
	if *out == "" {
		return usageErrorf(fs, "--out is required")
	}
	if err := checkBackend(*backend); err != nil {
		return err
	}
	if *partitions > 0 {
		set["partitions"] = fmt.Sprint(*partitions)
	}
	p, err := loadPipeline(*pipeline, set)
	if err != nil {
		return err
	}
	fam, err := proofFamily(p)
	if err != nil {
		return err
	}
	// fp is a family prove drives through stages/family; nil for Groth16,
	// whose keys and files go through this package's own path.
	fp, _ := fam.(family.Prover)
	var size int
	if fp == nil {
		if size, err = cf.parse(); err != nil {
			return err
		}
	} else {
		if size, err = familySize(fs, cf, p, fp); err != nil {
			return err
		}
	}
	nParts := p.Partitions
	nDev := p.Devices
	if *devices > 0 {
		nDev = *devices
	}

	// Cheap checks first: the key setup below can take minutes.
	show, err := progressEnabled(*progressMode, stderr)
	if err != nil {
		return err
	}
	// The trace goes with the run when it is inside --out (by default).
	traceIn := pl.DefaultFile
	traceFileSet := false
	fs.Visit(func(f *flag.Flag) { traceFileSet = traceFileSet || f.Name == "trace-file" })
	if traceFileSet {
		traceIn = ""
		absOut, err1 := filepath.Abs(*out)
		absTrace, err2 := filepath.Abs(tc.File)
		if err1 == nil && err2 == nil && filepath.Dir(absTrace) == absOut {
			traceIn = filepath.Base(absTrace)
		}
	}
	od, err := openOut(*out, traceIn, stderr)
	if err != nil {
		return err
	}
	defer od.close(stderr)

	// Memory follows the partitions in flight, which max_in_flight bounds.
	if fp == nil {
		if err := checkHostMemory(stderr, "prove", cf, size, min(nParts, p.InFlight(nDev)), false); err != nil {
			return err
		}
	}
	ctx, stop := signalContext()
	defer stop()
	var (
		ks      *keys.Set
		be      device.Backend
		job     *groth16.Job
		fj      family.Job
		keyName string
		payload any
		circuit = cf.circuit
	)
	if fp == nil {
		ks, be, job, err = openJob(ctx, "prove", cf, size, nParts, *seed, *backend, nDev, stderr)
		payload = job
	} else {
		circuit = fp.Name()
		if be, err = openBackend("prove", *backend, nDev, stderr); err == nil {
			if fj, keyName, err = familyJob(ctx, fp, cf.keys, size, nParts, *seed, stderr); err != nil {
				be.Close()
			} else {
				payload = fj.Payload()
			}
		}
	}
	if err != nil {
		return err
	}
	defer be.Close()
	if traceIn != "" {
		tc.File = od.path(traceIn)
	}
	tc.Attributes = append(tc.Attributes,
		attribute.String("prooflane.pipeline", p.Name),
		attribute.String("prooflane.pipeline_file", p.File),
		semconv.KeyPipelineHash.String(p.Hash),
		semconv.KeyBackend.String(be.Name()),
		attribute.Int("prooflane.devices", nDev),
		attribute.StringSlice("prooflane.device_names", deviceNames(be, nDev)),
		attribute.String("prooflane.circuit", circuit),
		attribute.Int("prooflane.size", size))
	prov, err := pl.Setup(ctx, tc)
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
	pr := startProgress(stderr, p, nParts, show)
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: prov.TracerProvider(), Devices: nDev, OnEvent: pr.Event, Backend: be})
	if err != nil {
		pr.Stop()
		return err
	}
	began := time.Now()
	res, err := e.Run(ctx, runtime.Job{ID: fmt.Sprintf("%s-%d", circuit, size), Partitions: nParts, Payload: payload})
	el := time.Since(began)
	pr.Stop()
	// The engine goes before the backend it was lent (deferred above).
	if cerr := e.Close(context.Background()); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}

	m := manifest{
		Circuit: circuit, Size: size, Partitions: nParts, Seed: *seed,
		Pipeline: p.Name, PipelineFile: p.File, PipelineSHA256: p.Hash, Backend: be.Name(), Devices: nDev,
		Seconds: el.Seconds(),
	}
	if fp != nil {
		m.Family, m.Key, m.Constraints = fp.Name(), keyName, size
		if err := writeFamilyProofs(od, p, fp, fj, res, &m); err != nil {
			return err
		}
	} else {
		m.Constraints, m.VK = ks.R1CS.GetNbConstraints(), vkFile
		if err := writeGroth16Proofs(od, p, ks, job, res, &m); err != nil {
			return err
		}
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := od.writeFile(manifestFile, func(w io.Writer) (int64, error) {
		n, err := w.Write(append(mb, '\n'))
		return int64(n), err
	}); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	if err := flush(); err != nil {
		return err
	}
	if err := od.commit(); err != nil {
		return fmt.Errorf("--out %q: %w", *out, err)
	}
	fmt.Fprintf(stdout, "%d proofs of %s (size %d, %d constraints) with pipeline %q in %.2fs: %.1f proofs/min; written to %s\n",
		nParts, circuit, size, m.Constraints, p.Name, el.Seconds(), float64(nParts)/el.Minutes(), *out)
	return nil
}

// writeGroth16Proofs writes the verifying key and each partition's proof
// and public inputs, listing them in m.
func writeGroth16Proofs(od *outDir, p *runtime.Pipeline, ks *keys.Set, job *groth16.Job, res *runtime.Result, m *manifest) error {
	if err := od.writeFile(vkFile, ks.VK.WriteTo); err != nil {
		return err
	}
	for _, r := range res.Partitions {
		proof, ok := r.Outputs["epilogue"].(*g16.Proof)
		if !ok {
			proof = findProof(r.Outputs)
		}
		if proof == nil {
			return fmt.Errorf("partition %d: pipeline %q produced no groth16 proof (outputs %v)", r.Index, p.Name, keysOf(r.Outputs))
		}
		pub, err := job.Public(r.Index)
		if err != nil {
			return err
		}
		if err := od.writeFile(proofFile(r.Index), proof.WriteTo); err != nil {
			return err
		}
		if err := od.writeFile(publicFile(r.Index), pub.WriteTo); err != nil {
			return err
		}
	}
	for i := 0; i < m.Partitions; i++ {
		m.Proofs = append(m.Proofs, proofFile(i))
		m.Public = append(m.Public, publicFile(i))
	}
	return nil
}

// writeFamilyProofs writes each partition's proof of a family.Prover (the
// output of the pipeline's final proof stage), listing them in m.
func writeFamilyProofs(od *outDir, p *runtime.Pipeline, fp family.Prover, fj family.Job, res *runtime.Result, m *manifest) error {
	final := family.FinalProofStages(p, fp)
	for _, r := range res.Partitions {
		out, ok := r.Outputs[final[0]]
		if !ok {
			return fmt.Errorf("partition %d: pipeline %q produced no %s proof (outputs %v)", r.Index, p.Name, fp.Name(), keysOf(r.Outputs))
		}
		files, err := fj.Files(r.Index, out)
		if err != nil {
			return err
		}
		if err := od.writeFile(proofFile(r.Index), func(w io.Writer) (int64, error) {
			n, err := w.Write(files.Proof)
			return int64(n), err
		}); err != nil {
			return err
		}
	}
	for i := 0; i < m.Partitions; i++ {
		m.Proofs = append(m.Proofs, proofFile(i))
	}
	return nil
}

// familySize is a family.Prover's --size, bounded by its MaxSize (not a
// circuit's minimum); --circuit, which names a Groth16 circuit, is refused
// with pipeline p of the family.
func familySize(fs *flag.FlagSet, cf circuitFlags, p *runtime.Pipeline, fp family.Prover) (int, error) {
	circuitSet := false
	fs.Visit(func(f *flag.Flag) { circuitSet = circuitSet || f.Name == "circuit" })
	if circuitSet {
		return 0, usageErrorf(fs, "--circuit %q: pipeline %q is of the %s family, which has no circuits (leave --circuit out)", cf.circuit, p.Name, fp.Name())
	}
	size, err := parseSize(cf.size)
	if err != nil {
		return 0, usageErrorf(fs, "--size: %w", err)
	}
	lo, hi, err := fp.SizeRange("")
	if err != nil {
		return 0, err
	}
	if size < lo || size > hi {
		return 0, usageErrorf(fs, "--size %s: want %d to %d, the %s family's limit on sizes", cf.size, lo, hi, fp.Name())
	}
	return size, nil
}

// familyJob sets up (or loads) fp's key of size in keysDir and returns its
// job of partitions from seed, and the key's name.
func familyJob(ctx context.Context, fp family.Prover, keysDir string, size, partitions int, seed uint64, log io.Writer) (family.Job, string, error) {
	k, err := fp.Setup(ctx, family.KeyRequest{Dir: keysDir, Size: size}, log)
	if err != nil {
		return nil, "", err
	}
	j, err := k.NewJob(partitions, seed)
	if err != nil {
		return nil, "", err
	}
	return j, k.Name(), nil
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

// proofFamily returns p's proof family, refusing a pipeline of no one
// family or with no final stage that outputs its family's proof.
func proofFamily(p *runtime.Pipeline) (family.Family, error) {
	f, err := builtin.Families().Of(p)
	if err != nil {
		return nil, fmt.Errorf("%w; use a groth16 pipeline such as pipelines/groth16.yaml", err)
	}
	if len(family.FinalProofStages(p, f)) > 0 {
		return f, nil
	}
	if _, ok := f.(family.Prover); ok {
		return nil, fmt.Errorf("%s: pipeline %q makes no %s proof: none of its final stages outputs %s", p.File, p.Name, f.Name(), f.ProofType())
	}
	return nil, fmt.Errorf("%s: pipeline %q makes no Groth16 proof: none of its final stages outputs %s (a stage of type %s); use a groth16 pipeline such as pipelines/groth16.yaml",
		p.File, p.Name, groth16.TypeProof, groth16.TypeNameEpilogue)
}

// findProof returns the one groth16 proof among a partition's outputs, for
// pipelines whose last stage is not named epilogue.
func findProof(outputs map[string]any) *g16.Proof {
	var found *g16.Proof
	for _, v := range outputs {
		if p, ok := v.(*g16.Proof); ok {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
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
