package prooflane

import (
	"context"
	"fmt"

	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

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
	r, err := newRun(circuit, opts, "plonk", "NewPlonkProver", "NewProver")
	if err != nil {
		return nil, err
	}
	k, ok := plonk.Unwrap(r.key)
	if !ok {
		r.close()
		return nil, fmt.Errorf("prooflane: a plonk key of %T", r.key)
	}
	return &PlonkProver{run: r, key: k}, nil
}

// VerifyingKey returns the circuit's verifying key.
func (pr *PlonkProver) VerifyingKey() *gplonk.VerifyingKey { return pr.key.VK }

// Prove proves every assignment, one partition each, in one job; proof i
// is assignment i's, checked by gnark's plonk.Verify. An assignment that
// does not satisfy the circuit fails the call, naming its index.
func (pr *PlonkProver) Prove(ctx context.Context, assignments []frontend.Circuit) ([]*PlonkProof, error) {
	res, err := pr.run.prove(ctx, assignments)
	if err != nil {
		return nil, err
	}
	out := make([]*PlonkProof, len(res))
	for i, r := range res {
		proof, ok := r.proof.(*gplonk.Proof)
		if !ok {
			return nil, fmt.Errorf("prooflane: assignment %d: the pipeline made a %T, not a PLONK proof", i, r.proof)
		}
		out[i] = &PlonkProof{Proof: proof, Public: r.public, VerifyingKey: pr.key.VK}
	}
	return out, nil
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
