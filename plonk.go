package prooflane

import (
	"context"
	"fmt"

	"github.com/consensys/gnark/backend/plonk"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

	plonkbls12381 "github.com/prooflane/prooflane/stages/plonk/bls12381"
	plonkbn254 "github.com/prooflane/prooflane/stages/plonk/bn254"
)

// PlonkProof is one verified PLONK proof and what a verifier needs besides
// it.
type PlonkProof struct {
	// Proof is gnark's PLONK proof of the prover's curve (a
	// *plonk_bls12381.Proof by default, a *plonk_bn254.Proof with
	// WithCurve(ecc.BN254)); plonk.Verify takes it.
	Proof plonk.Proof
	// Public is the assignment's public witness.
	Public witness.Witness
	// VerifyingKey is the circuit's verifying key (shared by every proof
	// of one PlonkProver).
	VerifyingKey plonk.VerifyingKey
}

// PlonkProver proves assignments of one circuit with one PLONK pipeline.
// It is safe for concurrent use: concurrent Prove calls are jobs in flight
// sharing the pipeline's locks.
type PlonkProver struct {
	run *run
	vk  plonk.VerifyingKey
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
	var vk plonk.VerifyingKey
	if k, ok := plonkbls12381.Unwrap(r.key); ok {
		vk = k.VK
	} else if k, ok := plonkbn254.Unwrap(r.key); ok {
		vk = k.VK
	} else {
		r.close()
		return nil, fmt.Errorf("prooflane: a plonk key of %T", r.key)
	}
	return &PlonkProver{run: r, vk: vk}, nil
}

// VerifyingKey returns the circuit's verifying key (a
// *plonk_bls12381.VerifyingKey, or the BN254 one with WithCurve).
func (pr *PlonkProver) VerifyingKey() plonk.VerifyingKey { return pr.vk }

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
		proof, ok := r.proof.(plonk.Proof)
		if !ok {
			return nil, fmt.Errorf("prooflane: assignment %d: the pipeline made a %T, not a PLONK proof", i, r.proof)
		}
		out[i] = &PlonkProof{Proof: proof, Public: r.public, VerifyingKey: pr.vk}
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
