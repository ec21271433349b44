package groth16

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
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

// Verify checks partition p's proof with gnark's verifier.
func (j *Job) Verify(p int, proof *g16.Proof) error {
	pub, err := j.Public(p)
	if err != nil {
		return err
	}
	return VerifyProof(j.VK, proof, pub)
}

// VerifyProof checks a proof against a verifying key and public witness
// with gnark's verifier.
func VerifyProof(vk *g16.VerifyingKey, proof *g16.Proof, public witness.Witness) error {
	vec, ok := public.Vector().(fr.Vector)
	if !ok {
		return fmt.Errorf("public witness is %T, want a bls12-381 fr.Vector", public.Vector())
	}
	if err := g16.Verify(proof, vk, vec); err != nil {
		return fmt.Errorf("proof does not verify: %w", err)
	}
	return nil
}
