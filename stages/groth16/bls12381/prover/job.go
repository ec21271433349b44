package prover

import (
	"bytes"
	"fmt"
	"hash"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"golang.org/x/crypto/sha3"

	"github.com/prooflane/prooflane/stages/family"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// Job is a groth16.Job with its key, as family.Job.
type Job struct {
	*groth16.Job
	key *Key
}

// Payload is the *groth16.Job the stages read.
func (j *Job) Payload() any { return j.Job }

// Partitions is the job's partition count, one a witness.
func (j *Job) Partitions() int { return len(j.Witnesses) }

// Files are the proof in the epilogue's output and partition's public
// witness, in gnark's serialization.
func (j *Job) Files(partition int, output any) (family.Files, error) {
	proof, ok := output.(*g16.Proof)
	if !ok || proof == nil {
		return family.Files{}, fmt.Errorf("partition %d: output %T, want a groth16 proof (*groth16.Proof)", partition, output)
	}
	pub, err := j.Public(partition)
	if err != nil {
		return family.Files{}, err
	}
	var pb, wb bytes.Buffer
	if _, err := proof.WriteTo(&pb); err != nil {
		return family.Files{}, fmt.Errorf("partition %d: encode proof: %w", partition, err)
	}
	if _, err := pub.WriteTo(&wb); err != nil {
		return family.Files{}, fmt.Errorf("partition %d: encode public inputs: %w", partition, err)
	}
	return family.Files{Proof: pb.Bytes(), Public: wb.Bytes()}, nil
}

// Verify checks partition's files against the job's key and the
// partition's own public inputs.
func (j *Job) Verify(partition int, f family.Files) error {
	pub, err := j.Public(partition)
	if err != nil {
		return err
	}
	want, err := pub.MarshalBinary()
	if err != nil {
		return err
	}
	if !bytes.Equal(f.Public, want) {
		return named("", f.PublicName, fmt.Errorf("not the public inputs of partition %d's witness", partition))
	}
	return j.key.vk.withHash(j.CommitmentHash).Verify(f)
}

// CommitmentHashes are the hashes a job's proofs take: gnark's default
// and keccak256, gnark's Solidity verifier's (family.CommitmentHashing).
func (Family) CommitmentHashes() []family.CommitmentHash { return family.CommitmentHashes }

// SetCommitmentHash makes the job's proofs hash their commitments with h,
// and checks them with it (family.CommitmentHashJob).
func (j *Job) SetCommitmentHash(h family.CommitmentHash) error {
	fn, err := commitmentHash(h)
	if err != nil {
		return err
	}
	j.CommitmentHash = fn
	return nil
}

// commitmentHash is the stages' hash of h (groth16.Job.CommitmentHash):
// nil for gnark's default.
func commitmentHash(h family.CommitmentHash) (func() hash.Hash, error) {
	switch h {
	case family.RFC9380, "":
		return nil, nil
	case family.Keccak256:
		return sha3.NewLegacyKeccak256, nil
	}
	_, err := family.ParseCommitmentHash(string(h))
	return nil, err
}

// BaselineName names gnark's prover in bench's table.
func (Family) BaselineName() string { return "gnark groth16.Prove (CPU, sequential)" }

// ProveBaseline proves partition's witness of job with gnark's own prover
// on the job's keys and verifies the proof.
func (Family) ProveBaseline(job family.Job, partition int) error {
	j, ok := job.(*Job)
	if !ok {
		return fmt.Errorf("job %T, not a groth16 one", job)
	}
	if partition < 0 || partition >= len(j.Witnesses) {
		return fmt.Errorf("partition %d out of the job's %d witnesses", partition, len(j.Witnesses))
	}
	proof, err := g16.Prove(j.R1CS, j.PK, j.Witnesses[partition], groth16.ProverOptions(j.CommitmentHash)...)
	if err != nil {
		return fmt.Errorf("gnark prove: %w", err)
	}
	return j.Job.Verify(partition, proof)
}

// verifyingKey is a Groth16 verifying key as family.VerifyingKey.
type verifyingKey struct {
	vk    *g16.VerifyingKey
	bytes []byte
	from  string
	// hash is the proofs' commitment hash (nil: gnark's default).
	hash func() hash.Hash
}

// WithCommitmentHash is the key checking proofs whose commitments were
// hashed with h (family.CommitmentHashKey).
func (v *verifyingKey) WithCommitmentHash(h family.CommitmentHash) (family.VerifyingKey, error) {
	fn, err := commitmentHash(h)
	if err != nil {
		return nil, err
	}
	return v.withHash(fn), nil
}

// withHash is a copy of v checking commitments hashed with fn.
func (v *verifyingKey) withHash(fn func() hash.Hash) *verifyingKey {
	c := *v
	c.hash = fn
	return &c
}

func newVerifyingKey(vk *g16.VerifyingKey, from string) *verifyingKey {
	var b bytes.Buffer
	if _, err := vk.WriteTo(&b); err != nil {
		// A bytes.Buffer does not fail; a key gnark cannot encode is
		// caught by the verify that follows.
		b.Reset()
	}
	return &verifyingKey{vk: vk, bytes: b.Bytes(), from: from}
}

// From is the verifying key file, or the key's name.
func (v *verifyingKey) From() string { return v.from }

// Bytes is vk.bin.
func (v *verifyingKey) Bytes() []byte { return v.bytes }

// NbPublic is the public inputs a public witness holds.
func (v *verifyingKey) NbPublic() int { return len(v.vk.G1.K) - 1 }

// Verify checks a partition's files: both decode (their declared lengths
// checked first) and the proof verifies against the public inputs.
func (v *verifyingKey) Verify(f family.Files) error {
	proof, err := DecodeProof(f.Proof)
	if err != nil {
		return named("read ", f.ProofName, err)
	}
	pub, err := DecodePublic(f.Public)
	if err != nil {
		return named("read ", f.PublicName, err)
	}
	return groth16.VerifyProof(v.vk, proof, pub, groth16.VerifierOptions(v.hash)...)
}

var (
	_ family.Job               = (*Job)(nil)
	_ family.Baseline          = Family{}
	_ family.VerifyingKey      = (*verifyingKey)(nil)
	_ family.CommitmentHashing = Family{}
	_ family.CommitmentHashJob = (*Job)(nil)
	_ family.CommitmentHashKey = (*verifyingKey)(nil)
)
