package prooflane

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// newConfig applies opts over the defaults.
func newConfig(opts []Option) config {
	c := config{keyDir: keys.DefaultDir(), log: io.Discard}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// parse reads the pipeline (the embedded one named after the family want
// when WithPipeline set none) and checks that it makes want's proofs,
// which newProver makes; other, the other family's constructor, is named
// in the refusal.
func (c config) parse(want, newProver, other string) (*runtime.Pipeline, family.Family, error) {
	name := c.pipeline
	if name == "" {
		name = want
	}
	file, src, err := pipelines.Source(name)
	if err != nil {
		return nil, nil, fmt.Errorf("prooflane: %w", err)
	}
	p, err := runtime.Parse(file, src, builtin.Registry(), c.params)
	if err != nil {
		return nil, nil, fmt.Errorf("prooflane: %w", err)
	}
	f, err := builtin.Families().Of(p)
	if err != nil {
		return nil, nil, fmt.Errorf("prooflane: %w", err)
	}
	if f.Name() != want {
		return nil, nil, fmt.Errorf("prooflane: %s: pipeline %q makes %s proofs, %s makes %s proofs (%s makes the other)",
			p.File, p.Name, f.Name(), newProver, want, other)
	}
	if len(family.FinalProofStages(p, f)) == 0 {
		return nil, nil, fmt.Errorf("prooflane: %s: pipeline %q has no final stage that outputs the %s proof (%s)", p.File, p.Name, want, f.ProofType())
	}
	return p, f, nil
}

// newRun is what NewProver and NewPlonkProver share: it refuses a nil
// circuit, parses the pipeline (see parse: it must make want's proofs),
// gets the circuit's key from key, and starts the engine.
func newRun[K any](circuit frontend.Circuit, opts []Option, want, newProver, other string,
	key func(frontend.Circuit, config) (K, error)) (*run, K, error) {
	var none K
	c := newConfig(opts)
	if circuit == nil {
		return nil, none, errors.New("prooflane: no circuit")
	}
	p, f, err := c.parse(want, newProver, other)
	if err != nil {
		return nil, none, err
	}
	k, err := key(circuit, c)
	if err != nil {
		return nil, none, fmt.Errorf("prooflane: %w", err)
	}
	r, err := c.start(p)
	if err != nil {
		return nil, none, err
	}
	r.verified = family.StagesVerify(p, f)
	return r, k, nil
}

// run is the engine a Prover of either family proves with, and its
// backend.
type run struct {
	engine     *runtime.Engine
	backend    device.Backend
	ownBackend bool
	solver     []solver.Option
	// verified says the pipeline's final stage checks each proof with
	// the family's verifier (family.StagesVerify); else collect does.
	verified bool
}

// start opens the backend (the CPU one with the pipeline's device count
// unless WithBackend gave one) and the engine of p.
func (c config) start(p *runtime.Pipeline) (*run, error) {
	r := &run{backend: c.backend, solver: c.solver}
	if r.backend == nil {
		b, err := cpu.New(p.Devices)
		if err != nil {
			return nil, fmt.Errorf("prooflane: %w", err)
		}
		r.backend, r.ownBackend = b, true
	}
	devices := min(p.Devices, len(r.backend.Devices()))
	if devices < 1 {
		name := r.backend.Name()
		r.close()
		return nil, fmt.Errorf("prooflane: backend %s has no device", name)
	}
	var err error
	r.engine, err = runtime.NewEngine(p, runtime.Options{Tracer: c.tracer, Devices: devices, Backend: r.backend})
	if err != nil {
		r.close()
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	return r, nil
}

// prove runs one job of payload; a stage's failure names the assignment
// (the partition) it failed on.
func (r *run) prove(ctx context.Context, payload any) (*runtime.Result, error) {
	res, err := r.engine.Run(ctx, runtime.Job{Payload: payload})
	if err != nil {
		var se *runtime.StageError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", se.Partition, err)
		}
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	return res, nil
}

// collect proves payload, a job of n partitions (one an assignment), and
// returns result i for assignment i: its partition's output of type *P
// (kind names the proof system when there is none), made into a T by
// result with the public witness that public gives for the partition.
// Each proof is checked once: by the pipeline's final stage (r.verified),
// or else here by verify. A proof that does not verify fails the call,
// naming the assignment.
func collect[P, T any](ctx context.Context, r *run, payload any, n int, kind string,
	public func(int) (witness.Witness, error), verify func(*P, witness.Witness) error, result func(*P, witness.Witness) T) ([]T, error) {
	res, err := r.prove(ctx, payload)
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	for _, part := range res.Partitions {
		var proof *P
		for _, v := range part.Outputs {
			if p, ok := v.(*P); ok {
				proof = p
			}
		}
		if proof == nil {
			return nil, fmt.Errorf("prooflane: assignment %d: the pipeline made no %s proof", part.Index, kind)
		}
		pub, err := public(part.Index)
		if err != nil {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", part.Index, err)
		}
		if !r.verified {
			if err := verify(proof, pub); err != nil {
				return nil, fmt.Errorf("prooflane: assignment %d: %w", part.Index, err)
			}
		}
		out[part.Index] = result(proof, pub)
	}
	return out, nil
}

// close closes the engine (its stages shut down once the proofs in flight
// are done), then the backend when the prover opened it.
func (r *run) close() error {
	var err error
	if r.engine != nil {
		err = r.engine.Close(context.Background()) // a later Prove fails: engine closed
	}
	if r.ownBackend && r.backend != nil {
		err = errors.Join(err, r.backend.Close())
		r.backend = nil
	}
	return err
}

// systemName names a compiled constraint system in a key cache: "circuit-"
// and the first 16 hex digits of the sha256 of its serialization.
func systemName(sys io.WriterTo) (string, error) {
	h := sha256.New()
	if _, err := sys.WriteTo(h); err != nil {
		return "", fmt.Errorf("hashing the constraint system: %w", err)
	}
	return fmt.Sprintf("circuit-%x", h.Sum(nil)[:8]), nil
}
