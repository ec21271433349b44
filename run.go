package prooflane

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/proving"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// newConfig applies opts over the defaults.
func newConfig(opts []Option) config {
	c := config{keyDir: family.DefaultKeyDir(), log: io.Discard, curve: family.DefaultCurve}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// parse reads the pipeline (the embedded one named after the family want
// when WithPipeline set none) and checks that it makes want's proofs,
// which newProver makes; other, the other family's constructor, is named
// in the refusal.
func (c config) parse(want, newProver, other string) (*proving.Pipeline, error) {
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
	f, err := proving.Of(p, builtin.Families())
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	if f.Name() != want {
		return nil, fmt.Errorf("prooflane: %s: pipeline %q makes %s proofs, %s makes %s proofs (%s makes the other)",
			p.File, p.Name, f.Name(), newProver, want, other)
	}
	pp, err := proving.Resolve(p, builtin.Families())
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	return pp, nil
}

// run is what a Prover of either family proves with: the pipeline, the
// circuit's key, the engine and its backend.
type run struct {
	pp         *proving.Pipeline
	key        family.Key
	engine     *runtime.Engine
	backend    device.Backend
	ownBackend bool
	solver     []solver.Option
	hash       family.CommitmentHash
}

// newRun is what NewProver and NewPlonkProver share: it refuses a nil
// circuit, parses the pipeline (see parse: it must make want's proofs),
// compiles the circuit with the pipeline's family, gets its key from the
// cache (a setup on a miss, under a name derived from the compiled
// system: family.CompiledSystem) and starts the engine.
func newRun(circuit frontend.Circuit, opts []Option, want, newProver, other string) (*run, error) {
	c := newConfig(opts)
	if circuit == nil {
		return nil, errors.New("prooflane: no circuit")
	}
	pp, err := c.parse(want, newProver, other)
	if err != nil {
		return nil, err
	}
	if h, err := family.ParseCommitmentHash(string(c.hash)); err != nil || !family.TakesCommitmentHash(pp.Family, h) {
		return nil, fmt.Errorf("prooflane: commitment hash %q: %s proofs take %s", c.hash, pp.Family.Name(), family.CommitmentHashesOf(pp.Family))
	}
	ccs, err := pp.Family.Compile(c.curve, fmt.Sprintf("%T", circuit), circuit)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	sys, err := family.CompiledSystem(ccs)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	key, err := pp.Family.Setup(context.Background(), family.KeyRequest{Dir: c.keyDir, System: sys}, c.log)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	r, err := c.start(pp.Pipeline)
	if err != nil {
		return nil, err
	}
	r.pp, r.key = pp, key
	return r, nil
}

// start opens the backend (the CPU one with the pipeline's device count
// unless WithBackend gave one) and the engine of p.
func (c config) start(p *runtime.Pipeline) (*run, error) {
	r := &run{backend: c.backend, solver: c.solver, hash: c.hash}
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

// proved is one assignment's proof: the final stage's output (the family's
// proof type) and the public witness.
type proved struct {
	proof  any
	public witness.Witness
}

// prove proves each assignment, one partition each, in one job and returns
// result i for assignment i, each checked once by the family's verifier
// (proving.Pipeline.PartitionFiles): a proof that does not verify fails
// the call, naming the assignment, as does an assignment that does not
// satisfy the circuit.
func (r *run) prove(ctx context.Context, assignments []frontend.Circuit) ([]proved, error) {
	ws, err := witnesses(family.CurveOf(r.key.System().Curve), assignments)
	if err != nil {
		return nil, err
	}
	job, err := r.key.NewJob(ws)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	if so, ok := job.Payload().(interface{ SetSolverOptions([]solver.Option) }); ok {
		so.SetSolverOptions(r.solver)
	}
	if err := family.SetCommitmentHash(job, r.hash); err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	res, err := r.engine.Run(ctx, runtime.Job{Payload: job.Payload()})
	if err != nil {
		var se *runtime.StageError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", se.Partition, err)
		}
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	out := make([]proved, len(ws))
	for _, part := range res.Partitions {
		proof, err := r.pp.Output(part.Index, part.Outputs)
		if err == nil {
			_, err = r.pp.PartitionFiles(job, part.Index, part.Outputs)
		}
		if err != nil {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", part.Index, err)
		}
		pub, err := ws[part.Index].Public()
		if err != nil {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", part.Index, err)
		}
		out[part.Index] = proved{proof: proof, public: pub}
	}
	return out, nil
}

// witnesses returns the full witness of each assignment, naming the index
// of one that has none.
func witnesses(curve ecc.ID, assignments []frontend.Circuit) ([]witness.Witness, error) {
	if len(assignments) == 0 {
		return nil, errors.New("prooflane: no assignments to prove")
	}
	ws := make([]witness.Witness, len(assignments))
	for i, a := range assignments {
		if a == nil {
			return nil, fmt.Errorf("prooflane: assignment %d is nil", i)
		}
		w, err := workloads.WitnessOf(curve, a)
		if err != nil {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", i, err)
		}
		ws[i] = w
	}
	return ws, nil
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
