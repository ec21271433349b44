// Package prooflane proves a user's own gnark circuit on BLS12-381 (or
// BN254 with WithCurve) through one of the pipelines embedded in the
// module, in one call, with Groth16 or PLONK:
//
//	proofs, err := prooflane.Prove(ctx, &MyCircuit{}, []frontend.Circuit{&a0, &a1})      // Groth16
//	proofs, err := prooflane.ProvePlonk(ctx, &MyCircuit{}, []frontend.Circuit{&a0, &a1}) // PLONK
//
// Choose the proof system by the function: Prove and NewProver make
// Groth16 proofs (the circuit compiled to an R1CS, a setup per circuit,
// the smallest proofs and fastest verifier; a circuit that commits, with
// api.Commit or a gadget built on it such as std/rangecheck,
// std/math/emulated, std/lookup/logderivlookup or std/hash/sha2, proves
// with no option, its proofs carrying gnark's commitments, hashed for
// gnark's Solidity verifier with WithCommitmentHash), ProvePlonk and
// NewPlonkProver PLONK proofs (the circuit compiled to a SparseR1CS, keys
// from one universal KZG SRS, gnark's BSB22 commitments of api.Commit and
// the gadgets built on it included). Both take the same Options; the pipeline must
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

//go:generate go run ./internal/curvegen

import (
	"context"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/logger"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages/family"
	proverbls12381 "github.com/prooflane/prooflane/stages/groth16/bls12381/prover"
	proverbn254 "github.com/prooflane/prooflane/stages/groth16/bn254/prover"
)

// Proof is one verified proof and what a verifier needs besides it.
type Proof struct {
	// Proof is gnark's Groth16 proof of the prover's curve (a
	// *groth16_bls12381.Proof by default, a *groth16_bn254.Proof with
	// WithCurve(ecc.BN254)); groth16.Verify takes it.
	Proof groth16.Proof
	// Public is the assignment's public witness.
	Public witness.Witness
	// VerifyingKey is the circuit's verifying key (shared by every proof
	// of one Prover).
	VerifyingKey groth16.VerifyingKey
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
	curve    ecc.ID
	hash     family.CommitmentHash
}

// WithCurve proves on curve: ecc.BLS12_381 (the default) or ecc.BN254
// (Ethereum's, whose proofs its precompiles verify). The curve is the
// compiled circuit's and its keys': the key cache keeps each curve's keys
// apart.
func WithCurve(curve ecc.ID) Option { return func(c *config) { c.curve = curve } }

// WithPipeline proves with another pipeline of the prover's family: a
// file, or the name of an embedded one ("groth16-dual-worker",
// "plonk-single-lock"); a file that exists wins. Default "groth16" for
// Prove, "plonk" for ProvePlonk.
func WithPipeline(nameOrPath string) Option { return func(c *config) { c.pipeline = nameOrPath } }

// WithParams overrides the pipeline's params (the CLI's --set).
func WithParams(params map[string]string) Option {
	return func(c *config) { c.params = params }
}

// WithKeyCache keeps keys in dir instead of family.DefaultKeyDir()
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

// WithCommitmentHash hashes each commitment of a Groth16 circuit that
// commits (api.Commit, or a gadget built on it) to a field element with
// h: family.Keccak256 for gnark's Solidity verifier (verify the proofs
// with gnark's solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)),
// family.RFC9380 (the default) as gnark does by default. PLONK proofs take
// the default alone: ProvePlonk refuses another.
func WithCommitmentHash(h family.CommitmentHash) Option {
	return func(c *config) { c.hash = h }
}

// SilenceGnark turns off gnark's global logger (logger.Disable), whose
// debug lines about compiling and solving go to stdout. It affects the
// whole process, as the prooflane command uses it.
func SilenceGnark() Option { return func(*config) { logger.Disable() } }

// Prover proves assignments of one circuit with one Groth16 pipeline. It
// is safe for concurrent use: concurrent Prove calls are jobs in flight
// sharing the pipeline's locks.
type Prover struct {
	run *run
	vk  groth16.VerifyingKey
}

// NewProver compiles circuit for Groth16, loads its keys from the cache
// (or runs the setup and caches them), and prepares the pipeline. Close
// it when done.
func NewProver(circuit frontend.Circuit, opts ...Option) (*Prover, error) {
	r, err := newRun(circuit, opts, "groth16", "NewProver", "NewPlonkProver")
	if err != nil {
		return nil, err
	}
	var vk groth16.VerifyingKey
	switch k := r.key.(type) {
	case *proverbls12381.Key:
		vk = k.Set.VK
	case *proverbn254.Key:
		vk = k.Set.VK
	default:
		r.close()
		return nil, fmt.Errorf("prooflane: a groth16 key of %T", r.key)
	}
	return &Prover{run: r, vk: vk}, nil
}

// VerifyingKey returns the circuit's verifying key (a
// *groth16_bls12381.VerifyingKey, or the BN254 one with WithCurve).
func (pr *Prover) VerifyingKey() groth16.VerifyingKey { return pr.vk }

// Prove proves every assignment, one partition each, in one job; proof i
// is assignment i's. An assignment that does not satisfy the circuit
// fails the call, naming its index.
func (pr *Prover) Prove(ctx context.Context, assignments []frontend.Circuit) ([]*Proof, error) {
	res, err := pr.run.prove(ctx, assignments)
	if err != nil {
		return nil, err
	}
	out := make([]*Proof, len(res))
	for i, r := range res {
		proof, ok := r.proof.(groth16.Proof)
		if !ok {
			return nil, fmt.Errorf("prooflane: assignment %d: the pipeline made a %T, not a Groth16 proof", i, r.proof)
		}
		out[i] = &Proof{Proof: proof, Public: r.public, VerifyingKey: pr.vk}
	}
	return out, nil
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
