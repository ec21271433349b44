package prover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// Job is a groth16.Job with its key set, as family.Job.
type Job struct {
	*groth16.Job
	set *keys.Set
}

// Payload is the *groth16.Job the stages read.
func (j *Job) Payload() any { return j.Job }

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

// VK is the verifying key's vk.bin.
func (j *Job) VK() ([]byte, error) { return encodeVK(j.Job.VK) }

// Verify checks partition's files against the job's key and witness.
func (j *Job) Verify(partition int, f family.Files) error {
	pub, err := j.Public(partition)
	if err != nil {
		return err
	}
	return verifyFiles(j.Job.VK, f, pub, func() string {
		return fmt.Sprintf("not the public inputs of circuit %q partition %d", j.Circuit, partition)
	})
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
	proof, err := g16.Prove(j.set.R1CS, j.set.PK, j.Witnesses[partition])
	if err != nil {
		return fmt.Errorf("gnark prove: %w", err)
	}
	return j.Job.Verify(partition, proof)
}

func encodeVK(vk *g16.VerifyingKey) ([]byte, error) {
	var b bytes.Buffer
	if _, err := vk.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("encode verifying key: %w", err)
	}
	return b.Bytes(), nil
}

// vkDigest is the first 8 bytes of vk.bin's sha256, in hex.
func vkDigest(vk *g16.VerifyingKey) string {
	b, err := encodeVK(vk)
	if err != nil {
		return "unencodable"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

var (
	_ family.Job      = (*Job)(nil)
	_ family.Baseline = Family{}
)
