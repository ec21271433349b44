package groth16

import (
	"fmt"
	"hash"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
)

// Public returns partition p's public witness.
func (j *Job) Public(p int) (witness.Witness, error) {
	if p < 0 || p >= len(j.Witnesses) {
		return nil, fmt.Errorf("partition %d out of the job's %d witnesses", p, len(j.Witnesses))
	}
	pub, err := j.Witnesses[p].Public()
	if err != nil {
		return nil, fmt.Errorf("partition %d: public witness: %w", p, err)
	}
	return pub, nil
}

// Verify checks partition p's proof with gnark's verifier, its
// commitments hashed with the job's CommitmentHash.
func (j *Job) Verify(p int, proof *g16.Proof) error {
	pub, err := j.Public(p)
	if err != nil {
		return err
	}
	return VerifyProof(j.VK, proof, pub, VerifierOptions(j.CommitmentHash)...)
}

// VerifierOptions are gnark's verifier options of a commitment hash:
// none for nil (gnark's default).
func VerifierOptions(commitmentHash func() hash.Hash) []backend.VerifierOption {
	if commitmentHash == nil {
		return nil
	}
	return []backend.VerifierOption{backend.WithVerifierHashToFieldFunction(commitmentHash())}
}

// ProverOptions are gnark's prover options of a commitment hash: none for
// nil (gnark's default).
func ProverOptions(commitmentHash func() hash.Hash) []backend.ProverOption {
	if commitmentHash == nil {
		return nil
	}
	return []backend.ProverOption{backend.WithProverHashToFieldFunction(commitmentHash())}
}

// VerifyProof checks a proof against a verifying key and public witness
// with gnark's verifier and its options (VerifierOptions).
func VerifyProof(vk *g16.VerifyingKey, proof *g16.Proof, public witness.Witness, opts ...backend.VerifierOption) error {
	vec, ok := public.Vector().(fr.Vector)
	if !ok {
		return fmt.Errorf("public witness is %T, want a bls12-381 fr.Vector", public.Vector())
	}
	if err := checkCommitmentShapes(vk, proof, len(vec)); err != nil {
		return fmt.Errorf("proof does not verify: %w", err)
	}
	if err := g16.Verify(proof, vk, vec, opts...); err != nil {
		return fmt.Errorf("proof does not verify: %w", err)
	}
	return nil
}

// checkCommitmentShapes checks what gnark's verifier indexes without
// checking it (a proof or verifying key read from a file could make it
// panic): a commitment in the proof per commitment key, and each
// commitment's hashed inputs among the public inputs and the commitments
// before it.
func checkCommitmentShapes(vk *g16.VerifyingKey, proof *g16.Proof, public int) error {
	n := len(vk.PublicAndCommitmentCommitted)
	if len(vk.CommitmentKeys) != n {
		return fmt.Errorf("verifying key has %d commitment keys and hashed inputs for %d commitments", len(vk.CommitmentKeys), n)
	}
	if len(proof.Commitments) != n {
		return fmt.Errorf("proof has %d commitments, the verifying key %d", len(proof.Commitments), n)
	}
	for i, hashed := range vk.PublicAndCommitmentCommitted {
		for _, w := range hashed {
			// public (without the constant one) and the commitments
			// before i, 1-based
			if w < 1 || w > public+i {
				return fmt.Errorf("verifying key: commitment %d hashes input %d, of %d public inputs and %d commitments before it", i, w, public, i)
			}
		}
	}
	return nil
}
