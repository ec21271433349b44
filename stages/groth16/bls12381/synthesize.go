package groth16

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend/witness"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/constraint/solver"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	"github.com/prooflane/prooflane/internal/solve"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages"
)

// synthesize solves the R1CS for the partition's witness, computing the
// circuit's commitments as the solver asks for them.
type synthesize struct {
	// dev is the engine's backend, when it lends one: the commitments'
	// MSMs run there (commitMSM).
	dev backendRef
	// devices is the number of devices partitions are placed on.
	devices int
}

// Start takes the engine's backend, which only circuits with commitments
// use; without one they are computed on the host.
func (s *synthesize) Start(_ context.Context, h stages.Host) error {
	if err := s.dev.start(h, false); err != nil {
		return err
	}
	if h != nil {
		s.devices = h.Devices()
	}
	return nil
}

func (s *synthesize) Run(ctx context.Context, in *stages.Input) (any, error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := j.Witnesses[in.Partition]
	opts := slices.Clip(j.SolverOptions)
	// sha256's wires are small integers: solved in int64 (smallsolve.go);
	// a circuit whose levels hold an instruction or a few (chain, mimc)
	// in field arithmetic in the builder's order (fieldsolve.go); else,
	// and with commitments (whose hint the solver calls in the middle of
	// the solve), by gnark's solver.
	if v, ok := w.Vector().(fr.Vector); ok && j.commit.count() == 0 {
		hinted := append(opts, solve.RecoverHints())
		if sol, err := solveSmall(j.R1CS, &j.small, hinted, v); err == nil {
			trace.SpanFromContext(ctx).SetAttributes(pl.KeySolver.String("small"))
			return sol, nil
		}
		if sol, err := solveField(j.R1CS, &j.field, hinted, v); err == nil {
			trace.SpanFromContext(ctx).SetAttributes(pl.KeySolver.String("field"))
			return sol, nil
		}
	}
	trace.SpanFromContext(ctx).SetAttributes(pl.KeySolver.String("gnark"))
	var (
		points  []curve.G1Affine
		mu      sync.Mutex
		hintErr error
	)
	if n := j.commit.count(); n > 0 {
		points = make([]curve.G1Affine, n)
		hint := j.commitHint(func(i int, values []fr.Element) (curve.G1Affine, error) {
			return s.commitMSM(ctx, in, j, i, values)
		}, points)
		// The hint's own error, kept: the solver words it as an
		// unsatisfied constraint.
		opts = append(slices.Clip(opts), solver.OverrideHint(bsb22Hint, func(m *big.Int, ins, outs []*big.Int) error {
			err := hint(m, ins, outs)
			if err != nil {
				mu.Lock()
				hintErr = firstErr(hintErr, err)
				mu.Unlock()
			}
			return err
		}))
	}
	// Last: every hint's panic (the std gadgets' hints trust the
	// constants a system gives them) is the solve's error.
	res, err := j.solve(w, append(opts, solve.RecoverHints()))
	mu.Lock()
	defer mu.Unlock()
	if hintErr != nil {
		return nil, fmt.Errorf("circuit %q partition %d: %w", j.Circuit, in.Partition, hintErr)
	}
	if err != nil {
		return nil, fmt.Errorf("circuit %q partition %d: witness does not satisfy the circuit: %w", j.Circuit, in.Partition, err)
	}
	sol, ok := res.(*cs.R1CSSolution)
	if !ok {
		return nil, fmt.Errorf("circuit %q partition %d: solver returned %T, want *cs.R1CSSolution", j.Circuit, in.Partition, res)
	}
	return &Solution{
		Wires:       []fr.Element(sol.W),
		A:           []fr.Element(sol.A),
		B:           []fr.Element(sol.B),
		C:           []fr.Element(sol.C),
		Commitments: points,
	}, nil
}

// solve runs gnark's solver on w. A system with stateful blueprints
// (std/lookup/logderivlookup's lookups keep the solve in progress's table
// in the blueprint, which every solve of the system shares) is solved on
// a copy with blueprints of its own (solve.OwnState), so that partitions
// solve at once; one with a stateful blueprint of a kind it cannot copy,
// one solve at a time.
func (j *Job) solve(w witness.Witness, opts []solver.Option) (any, error) {
	stateful, copyable := solve.Stateful(&j.R1CS.System)
	switch {
	case !stateful:
		return j.R1CS.Solve(w, opts...)
	case !copyable:
		j.solveMu.Lock()
		defer j.solveMu.Unlock()
		return j.R1CS.Solve(w, opts...)
	}
	sys := *j.R1CS
	solve.OwnState(&sys.System)
	return sys.Solve(w, opts...)
}

// firstErr keeps the first error.
func firstErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// commitOnDeviceMin is the fewest committed values whose Pedersen
// commitment goes through the device contract; fewer are summed on the
// host cores, where they cost less than a device's round trip (doc.go).
// A variable for the tests.
var commitOnDeviceMin = 1 << 10

// commitMSM computes commitment i's Pedersen commitment Σ vⱼ·Basisⱼ of
// values: with an engine's backend, as an MSM on the partition's device
// (device Partition mod the devices while it is not placed yet: the
// solver runs before any device stage), over the commitment key's bases
// made resident there once, under a kernel span msm_commit; on the host
// cores without a backend, below commitOnDeviceMin values, or when the
// device is out of memory (a span event says so).
func (s *synthesize) commitMSM(ctx context.Context, in *stages.Input, j *Job, i int, values []fr.Element) (curve.G1Affine, error) {
	basis := j.PK.CommitmentKeys[i].Basis
	if s.dev.be == nil || len(values) < commitOnDeviceMin {
		return hostMSM(basis, values)
	}
	idx := in.Device
	if idx < 0 {
		idx = in.Partition % max(s.devices, 1)
	}
	p, err := s.deviceMSM(ctx, idx, j.BasesKey+fmt.Sprintf("/commit.%d", i), basis, values)
	if isOOM(err) && ctx.Err() == nil {
		trace.SpanFromContext(ctx).AddEvent("commitment computed on the host: the device is out of memory",
			trace.WithAttributes(attribute.Int("commitment", i), attribute.String("error", err.Error())))
		return hostMSM(basis, values)
	}
	return p, err
}

// hostMSM is Σ values[j]·bases[j] on every core (gnark-crypto).
func hostMSM(bases []curve.G1Affine, values []fr.Element) (curve.G1Affine, error) {
	var p curve.G1Affine
	if len(values) == 0 {
		return p, nil
	}
	if _, err := p.MultiExp(bases, values, ecc.MultiExpConfig{NbTasks: runtime.NumCPU()}); err != nil {
		return p, err
	}
	return p, nil
}

// deviceMSM is Σ values[j]·bases[j] on device idx of the stage's backend,
// the bases resident under key.
func (s *synthesize) deviceMSM(ctx context.Context, idx int, key string, bases []curve.G1Affine, values []fr.Element) (curve.G1Affine, error) {
	var p curve.G1Affine
	dev, err := cdev.Of(s.dev.be, idx)
	if err != nil {
		return p, err
	}
	b, err := dev.LoadG1(key, bases)
	if err != nil {
		return p, fmt.Errorf("device %d: load the commitment key's bases: %w", idx, err)
	}
	raw, err := dev.NewStream()
	if err != nil {
		return p, fmt.Errorf("device %d: new stream: %w", idx, err)
	}
	defer raw.Close()
	st := traced.New(raw, idx)
	err = traced.Kernel(ctx, st, "msm_commit", func(ctx context.Context) error {
		v, err := st.Alloc(len(values))
		if err != nil {
			return err
		}
		defer st.Free(v)
		if err := st.Upload(v, values, device.FormMontgomery); err != nil {
			return err
		}
		r, err := st.MSMG1(ctx, b, v, len(values))
		if err != nil {
			return err
		}
		p.FromJacobian(&r)
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("device %d: %w", idx, err)
	}
	return p, nil
}
