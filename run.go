package prooflane

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark/constraint/solver"

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
func (c config) parse(want, newProver, other string) (*runtime.Pipeline, error) {
	name := c.pipeline
	if name == "" {
		name = want
	}
	file, src, err := pipelines.Source(name)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	p, err := runtime.Parse(file, src, builtin.Registry(), c.params)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	f, err := builtin.Families().Of(p)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	if f.Name() != want {
		return nil, fmt.Errorf("prooflane: %s: pipeline %q makes %s proofs, %s makes %s proofs (%s makes the other)",
			p.File, p.Name, f.Name(), newProver, want, other)
	}
	if len(family.FinalProofStages(p, f)) == 0 {
		return nil, fmt.Errorf("prooflane: %s: pipeline %q has no final stage that outputs the %s proof (%s)", p.File, p.Name, want, f.ProofType())
	}
	return p, nil
}

// run is the engine a Prover of either family proves with, and its
// backend.
type run struct {
	engine     *runtime.Engine
	backend    device.Backend
	ownBackend bool
	solver     []solver.Option
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
