package groth16_test

import (
	"testing"

	"github.com/consensys/gnark/backend"
	gnarkg16 "github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/solidity"
	"golang.org/x/crypto/sha3"
)

// A job whose CommitmentHash is keccak256 hashes each commitment with it,
// as gnark's prover does for its Solidity verifier: the epilogue's own
// check and the job's Verify take it, gnark's verifier accepts the proofs
// with solidity.WithVerifierTargetSolidityVerifier and rejects them
// without (its default hash is RFC 9380's).
func TestAKeccakCommitmentHashMakesProofsForGnarksSolidityVerifier(t *testing.T) {
	c := committingCircuits()[4] // two commitments, the second hashing the first
	job := committedJob(t, c, committedKeys(t, c), 2, 11)
	job.CommitmentHash = sha3.NewLegacyKeccak256
	proofs, err := runSequential(t, job, cpuBackend(t, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, proof := range proofs {
		pub, err := job.Public(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Verify(p, proof); err != nil {
			t.Errorf("partition %d: the job's verify: %v", p, err)
		}
		if err := gnarkg16.Verify(proof, job.VK, pub, solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
			t.Errorf("partition %d: gnark's verifier with keccak256: %v", p, err)
		}
		if err := gnarkg16.Verify(proof, job.VK, pub); err == nil {
			t.Errorf("partition %d: gnark's verifier with its default hash accepts a keccak256 proof", p)
		}
	}
}
