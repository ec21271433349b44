// Package prooflane proves a user's own gnark circuit on BLS12-381
// through one of the pipelines embedded in the module, in one call, with
// Groth16 or PLONK:
//
//	proofs, err := prooflane.Prove(ctx, &MyCircuit{}, []frontend.Circuit{&a0, &a1})      // Groth16
//	proofs, err := prooflane.ProvePlonk(ctx, &MyCircuit{}, []frontend.Circuit{&a0, &a1}) // PLONK
//
// Choose the proof system by the function: Prove and NewProver make
// Groth16 proofs (the circuit compiled to an R1CS, a setup per circuit,
// the smallest proofs and fastest verifier; a circuit that commits, with
// api.Commit or a gadget built on it such as std/rangecheck,
// std/math/emulated, std/lookup/logderivlookup or std/hash/sha2, proves
// with no option, its proofs carrying gnark's commitments), ProvePlonk and
// NewPlonkProver PLONK proofs (the circuit compiled to a SparseR1CS, keys
// from one universal KZG SRS; circuits with gnark's BSB22 commitments,
// api.Commit, are refused). Both take the same Options; the pipeline must
// make the proofs of the function's family (a Groth16 pipeline for
// Prove, a PLONK one for ProvePlonk), or the constructor refuses it.
//
// Each assignment becomes one partition of one job of the pipeline
// (pipelines/groth16.yaml or pipelines/plonk.yaml unless WithPipeline says
// otherwise), so several assignments are proved concurrently, under the
// pipeline's locks. The keys come from an on-disk cache keyed by the
// compiled constraint system (the setup runs once per circuit, with fresh
// randomness, an unsafe SRS for PLONK: for development and benchmarks,
// not for production keys). Every proof returned has been checked by
// gnark's verifier.
//
// A Prover (PlonkProver) compiles the circuit and loads its keys once,
// for callers that prove many batches.
//
// gnark's own logger (compile and solver debug lines on stdout) is left
// as the caller set it: SilenceGnark turns it off, process-wide, as the
// prooflane command does.
package prooflane

import (
	"context"
	"fmt"
	"io"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/logger"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// Proof is one verified proof and what a verifier needs besides it.
type Proof struct {
	// Proof is gnark's BLS12-381 Groth16 proof; it satisfies gnark's
	// backend/groth16.Proof, so groth16.Verify takes it.
	Proof *g16.Proof
	// Public is the assignment's public witness.
	Public witness.Witness
	// VerifyingKey is the circuit's verifying key (shared by every proof
	// of one Prover).
	VerifyingKey *g16.VerifyingKey
}

// Option configures Prove and NewProver.
type Option func(*config)

type config struct {
	pipeline string
	params   map[string]string
	keyDir   string
	backend  device.Backend
	tracer   trace.TracerProvider
	log      io.Writer
	solver   []solver.Option
}

// WithPipeline proves with another pipeline of the prover's family: a
// file, or the name of an embedded one ("groth16-dual-worker",
// "plonk-single-lock"); a file that exists wins. Default "groth16" for
// Prove, "plonk" for ProvePlonk.
func WithPipeline(nameOrPath string) Option { return func(c *config) { c.pipeline = nameOrPath } }

// WithParams overrides the pipeline's params (the CLI's --set).
func WithParams(params map[string]string) Option {
	return func(c *config) { c.params = params }
}

// WithKeyCache keeps keys in dir instead of keys.DefaultDir()
// ($XDG_CACHE_HOME/prooflane/keys).
func WithKeyCache(dir string) Option { return func(c *config) { c.keyDir = dir } }

// WithBackend proves on b (a CUDA backend, say) instead of the CPU
// backend with the pipeline's device count. The caller keeps b and closes
// it after the Prover.
func WithBackend(b device.Backend) Option { return func(c *config) { c.backend = b } }

// WithTracerProvider sends the job, partition, stage and lock-wait spans
// to tp; by default none are recorded.
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tracer = tp } }

// WithLog receives one-line messages about the key setup (that it runs,
// and when it is done); by default they are dropped.
func WithLog(w io.Writer) Option { return func(c *config) { c.log = w } }

// WithSolverOptions passes options (custom hints) to gnark's solver.
func WithSolverOptions(opts ...solver.Option) Option {
	return func(c *config) { c.solver = append(c.solver, opts...) }
}

// SilenceGnark turns off gnark's global logger (logger.Disable), whose
// debug lines about compiling and solving go to stdout. It affects the
// whole process, as the prooflane command uses it.
func SilenceGnark() Option { return func(*config) { logger.Disable() } }

// Prover proves assignments of one circuit with one Groth16 pipeline. It
// is safe for concurrent use: concurrent Prove calls are jobs in flight
// sharing the pipeline's locks.
type Prover struct {
	run  *run
	keys *keys.Set
}

// NewProver compiles circuit for Groth16, loads its keys from the cache
// (or runs the setup and caches them), and prepares the pipeline. Close
// it when done.
func NewProver(circuit frontend.Circuit, opts ...Option) (*Prover, error) {
	r, ks, err := newRun(circuit, opts, "groth16", "NewProver", "NewPlonkProver",
		func(circuit frontend.Circuit, c config) (*keys.Set, error) {
			return circuitKeys(circuit, keys.Cache{Dir: c.keyDir}, c.log)
		})
	if err != nil {
		return nil, err
	}
	return &Prover{run: r, keys: ks}, nil
}

// VerifyingKey returns the circuit's verifying key.
func (pr *Prover) VerifyingKey() *g16.VerifyingKey { return pr.keys.VK }

// Prove proves every assignment, one partition each, in one job; proof i
// is assignment i's. An assignment that does not satisfy the circuit
// fails the call, naming its index.
func (pr *Prover) Prove(ctx context.Context, assignments []frontend.Circuit) ([]*Proof, error) {
	ws, err := witnesses(assignments)
	if err != nil {
		return nil, err
	}
	job, err := groth16.NewJob(pr.keys.Circuit, pr.keys.R1CS, pr.keys.PK, pr.keys.VK, ws)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	job.SolverOptions = pr.run.solver
	return collect(ctx, pr.run, job, len(ws), "Groth16", job.Public,
		func(proof *g16.Proof, pub witness.Witness) error { return groth16.VerifyProof(pr.keys.VK, proof, pub) },
		func(proof *g16.Proof, pub witness.Witness) *Proof {
			return &Proof{Proof: proof, Public: pub, VerifyingKey: pr.keys.VK}
		})
}

// Close closes the Prover's engine (its stages shut down once the proofs
// in flight are done), then the backend when the Prover opened it.
func (pr *Prover) Close() error { return pr.run.close() }

// Prove proves each assignment of circuit and returns the proofs, each
// checked by gnark's verifier: NewProver, Prove and Close in one call.
func Prove(ctx context.Context, circuit frontend.Circuit, assignments []frontend.Circuit, opts ...Option) ([]*Proof, error) {
	pr, err := NewProver(circuit, opts...)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	return pr.Prove(ctx, assignments)
}

// circuitKeys compiles circuit and returns its keys from the cache, under
// a name derived from the compiled constraint system ("circuit-" and 16
// hex digits, size = its constraint count), running the setup on a miss.
func circuitKeys(circuit frontend.Circuit, cache keys.Cache, log io.Writer) (*keys.Set, error) {
	sys, err := keys.CompileCircuit(fmt.Sprintf("%T", circuit), circuit)
	if err != nil {
		return nil, err
	}
	name, err := systemName(sys)
	if err != nil {
		return nil, err
	}
	size := sys.GetNbConstraints()
	// Under the cache's lock: two processes proving the same circuit run
	// one setup and never mix the files of two.
	return cache.LoadOrMake(context.Background(), name, size, log, func() (*keys.Set, error) {
		var pk g16.ProvingKey
		var vk g16.VerifyingKey
		if err := g16.Setup(sys, &pk, &vk); err != nil {
			return nil, fmt.Errorf("setup of %T: %w", circuit, err)
		}
		return &keys.Set{Circuit: name, Size: size, R1CS: sys, PK: &pk, VK: &vk}, nil
	})
}
