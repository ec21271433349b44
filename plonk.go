package prooflane

import (
	"context"
	"errors"
	"fmt"
	"io"

	gnarkplonk "github.com/consensys/gnark/backend/plonk"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/stages/groth16/circuits"
	"github.com/prooflane/prooflane/stages/plonk"
)

// PlonkProof is one verified PLONK proof and what a verifier needs besides
// it.
type PlonkProof struct {
	// Proof is gnark's BLS12-381 PLONK proof; it satisfies gnark's
	// backend/plonk.Proof, so plonk.Verify takes it.
	Proof *gplonk.Proof
	// Public is the assignment's public witness.
	Public witness.Witness
	// VerifyingKey is the circuit's verifying key (shared by every proof
	// of one PlonkProver).
	VerifyingKey *gplonk.VerifyingKey
}

// PlonkProver proves assignments of one circuit with one PLONK pipeline.
// It is safe for concurrent use: concurrent Prove calls are jobs in flight
// sharing the pipeline's locks.
type PlonkProver struct {
	run *run
	key *plonk.Key
}

// NewPlonkProver compiles circuit for PLONK (a SparseR1CS, with its BSB22
// commitments: api.Commit and the standard gadgets that call it, such as
// std/rangecheck, std/lookup/logderivlookup, std/math/emulated and
// std/hash/sha2, prove with no option to set), loads its key from the
// cache (or runs the setup on an unsafe KZG SRS and caches it), and
// prepares the pipeline (pipelines/plonk.yaml unless WithPipeline names
// another PLONK one). Close it when done.
func NewPlonkProver(circuit frontend.Circuit, opts ...Option) (*PlonkProver, error) {
	r, k, err := newRun(circuit, opts, "plonk", "NewPlonkProver", "NewProver",
		func(circuit frontend.Circuit, c config) (*plonk.Key, error) {
			return plonkKey(circuit, plonk.Cache{Dir: c.keyDir}, c.log)
		})
	if err != nil {
		return nil, err
	}
	return &PlonkProver{run: r, key: k}, nil
}

// VerifyingKey returns the circuit's verifying key.
func (pr *PlonkProver) VerifyingKey() *gplonk.VerifyingKey { return pr.key.VK }

// Prove proves every assignment, one partition each, in one job; proof i
// is assignment i's, checked by gnark's plonk.Verify. An assignment that
// does not satisfy the circuit fails the call, naming its index.
func (pr *PlonkProver) Prove(ctx context.Context, assignments []frontend.Circuit) ([]*PlonkProof, error) {
	ws, err := witnesses(assignments)
	if err != nil {
		return nil, err
	}
	job, err := plonk.NewJob(pr.key, ws)
	if err != nil {
		return nil, fmt.Errorf("prooflane: %w", err)
	}
	job.SolverOptions = pr.run.solver
	public := func(i int) (witness.Witness, error) { return ws[i].Public() }
	return collect(ctx, pr.run, job, len(ws), "PLONK", public,
		func(proof *gplonk.Proof, pub witness.Witness) error {
			if err := gnarkplonk.Verify(proof, pr.key.VK, pub); err != nil {
				return fmt.Errorf("the proof does not verify: %w", err)
			}
			return nil
		},
		func(proof *gplonk.Proof, pub witness.Witness) *PlonkProof {
			return &PlonkProof{Proof: proof, Public: pub, VerifyingKey: pr.key.VK}
		})
}

// Close closes the PlonkProver's engine (its stages shut down once the
// proofs in flight are done), then the backend when the PlonkProver
// opened it.
func (pr *PlonkProver) Close() error { return pr.run.close() }

// ProvePlonk proves each assignment of circuit with PLONK and returns the
// proofs, each checked by gnark's plonk.Verify: NewPlonkProver, Prove and
// Close in one call.
func ProvePlonk(ctx context.Context, circuit frontend.Circuit, assignments []frontend.Circuit, opts ...Option) ([]*PlonkProof, error) {
	pr, err := NewPlonkProver(circuit, opts...)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	return pr.Prove(ctx, assignments)
}

// witnesses returns the full witness of each assignment, naming the index
// of one that has none.
func witnesses(assignments []frontend.Circuit) ([]witness.Witness, error) {
	if len(assignments) == 0 {
		return nil, errors.New("prooflane: no assignments to prove")
	}
	ws := make([]witness.Witness, len(assignments))
	for i, a := range assignments {
		if a == nil {
			return nil, fmt.Errorf("prooflane: assignment %d is nil", i)
		}
		w, err := circuits.Witness(a)
		if err != nil {
			return nil, fmt.Errorf("prooflane: assignment %d: %w", i, err)
		}
		ws[i] = w
	}
	return ws, nil
}

// plonkKey compiles circuit for PLONK and returns its key from the cache,
// under a name derived from the compiled constraint system (as
// circuitKeys names Groth16's; size = its constraint count), running the
// setup on a miss.
func plonkKey(circuit frontend.Circuit, cache plonk.Cache, log io.Writer) (*plonk.Key, error) {
	spr, err := plonk.CompileCircuit(fmt.Sprintf("%T", circuit), circuit)
	if err != nil {
		return nil, err
	}
	name, err := systemName(spr)
	if err != nil {
		return nil, err
	}
	return cache.LoadOrSetupSystem(context.Background(), name, spr.GetNbConstraints(), spr, log)
}
