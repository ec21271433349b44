package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"go.opentelemetry.io/otel/attribute"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/groth16"
)

func init() {
	register("prove", command{summary: "prove a Groth16 job with a pipeline and write the proofs", run: runProve})
}

// manifest describes a directory of proofs written by prove.
type manifest struct {
	Circuit        string  `json:"circuit"`
	Size           int     `json:"size"`
	Constraints    int     `json:"constraints"`
	Partitions     int     `json:"partitions"`
	Seed           uint64  `json:"seed"`
	Pipeline       string  `json:"pipeline"`
	PipelineFile   string  `json:"pipeline_file"`
	PipelineSHA256 string  `json:"pipeline_sha256"`
	Backend        string  `json:"backend"`
	Devices        int     `json:"devices"`
	Seconds        float64 `json:"seconds"`
	// VK is the verifying key copied next to the proofs, relative to the
	// directory.
	VK     string   `json:"vk"`
	Proofs []string `json:"proofs"`
	Public []string `json:"public"`
}

const manifestFile = "manifest.json"

func proofFile(p int) string  { return fmt.Sprintf("proof-%d.bin", p) }
func publicFile(p int) string { return fmt.Sprintf("public-%d.bin", p) }

func runProve(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("prove", "", stderr)
	var cf circuitFlags
	cf.register(fs)
	pipeline := fs.String("pipeline", "groth16", pipelineArgHelp)
	partitions := fs.Int("partitions", 0, "partitions, each with its own witness (default: the pipeline's partitions parameter)")
	out := fs.String("out", "", "directory for the proofs, public inputs, manifest and trace (required; proofs an earlier run left there beyond this run's partitions are removed)")
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
		f.Usage, f.DefValue = "JSON-lines trace file of --trace file (default: trace.jsonl in the --out directory)", ""
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
	size, err := cf.parse()
	if err != nil {
		return err
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
	if err := checkMakesProofs(p); err != nil {
		return err
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
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}

	if err := checkHostMemory(stderr, "prove", cf, size, nParts, false); err != nil {
		return err
	}
	ks, be, job, err := openJob("prove", cf, size, nParts, *seed, *backend, nDev, stderr)
	if err != nil {
		return err
	}
	defer be.Close()

	ctx, stop := signalContext()
	defer stop()
	traceFileSet := false
	fs.Visit(func(f *flag.Flag) { traceFileSet = traceFileSet || f.Name == "trace-file" })
	if !traceFileSet {
		tc.File = filepath.Join(*out, pl.DefaultFile)
	}
	tc.Attributes = append(tc.Attributes,
		attribute.String("prooflane.pipeline", p.Name),
		attribute.String("prooflane.pipeline_file", p.File),
		attribute.String("prooflane.pipeline_sha256", p.Hash),
		pl.KeyBackend.String(be.Name()),
		attribute.Int("prooflane.devices", nDev),
		attribute.StringSlice("prooflane.device_names", deviceNames(be, nDev)),
		attribute.String("prooflane.circuit", cf.circuit),
		attribute.Int("prooflane.size", size))
	prov, err := pl.Setup(ctx, tc)
	if err != nil {
		return err
	}
	defer func() {
		if err := prov.Shutdown(context.Background()); err != nil {
			fmt.Fprintf(stderr, "prooflane prove: warning: %v\n", err)
		}
	}()
	pr := startProgress(stderr, p, nParts, show)
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: prov.TracerProvider(), Devices: nDev, OnEvent: pr.Event})
	if err != nil {
		pr.Stop()
		return err
	}
	began := time.Now()
	res, err := e.Run(ctx, runtime.Job{ID: fmt.Sprintf("%s-%d", cf.circuit, size), Partitions: nParts, Payload: job})
	el := time.Since(began)
	pr.Stop()
	if err != nil {
		return err
	}

	m := manifest{
		Circuit: cf.circuit, Size: size, Constraints: ks.R1CS.GetNbConstraints(), Partitions: nParts, Seed: *seed,
		Pipeline: p.Name, PipelineFile: p.File, PipelineSHA256: p.Hash, Backend: be.Name(), Devices: nDev,
		Seconds: el.Seconds(), VK: "vk.bin",
	}
	if err := writeTo(filepath.Join(*out, m.VK), ks.VK.WriteTo); err != nil {
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
		if err := writeTo(filepath.Join(*out, proofFile(r.Index)), proof.WriteTo); err != nil {
			return err
		}
		if err := writeTo(filepath.Join(*out, publicFile(r.Index)), pub.WriteTo); err != nil {
			return err
		}
	}
	for i := 0; i < nParts; i++ {
		m.Proofs = append(m.Proofs, proofFile(i))
		m.Public = append(m.Public, publicFile(i))
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, manifestFile), append(mb, '\n'), 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	fmt.Fprintf(stdout, "%d proofs of %s (size %d, %d constraints) with pipeline %q in %.2fs: %.1f proofs/min; written to %s\n",
		nParts, cf.circuit, size, m.Constraints, p.Name, el.Seconds(), float64(nParts)/el.Minutes(), *out)
	return removeStale(*out, nParts, stderr)
}

// runFile matches the names prove gives proof and public-input files.
var runFile = regexp.MustCompile(`^(?:proof|public)-(0|[1-9][0-9]*)\.bin$`)

// removeStale deletes the proof and public-input files that an earlier run
// with more partitions left in dir (proof-N.bin, public-N.bin for N from
// n up), so the directory holds this run's files only, and says so.
func removeStale(dir string, n int, stderr io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var removed []string
	for _, e := range entries {
		m := runFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if i, err := strconv.Atoi(m[1]); err != nil || i < n {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("removing %s of an earlier run: %w", e.Name(), err)
		}
		removed = append(removed, e.Name())
	}
	if len(removed) > 0 {
		fmt.Fprintf(stderr, "prooflane prove: removed %d files an earlier run with more partitions left in %s: %s\n",
			len(removed), dir, strings.Join(removed, " "))
	}
	return nil
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

// checkMakesProofs refuses, before any key setup or proving, a pipeline
// with no final stage that outputs a Groth16 proof (a sim.* pipeline, or
// one whose epilogue feeds another stage): prove and bench would run the
// whole job only to find no proof in its outputs.
func checkMakesProofs(p *runtime.Pipeline) error {
	needed := map[*runtime.Stage]bool{}
	for _, s := range p.Stages {
		for _, n := range s.Needs {
			needed[n] = true
		}
	}
	for _, s := range p.Stages {
		if !needed[s] && s.Factory().Output == groth16.TypeProof {
			return nil
		}
	}
	return fmt.Errorf("%s: pipeline %q makes no Groth16 proof: none of its final stages outputs %s (a stage of type %s); use a groth16 pipeline such as pipelines/groth16.yaml",
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

func writeTo(path string, write func(io.Writer) (int64, error)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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
