package service

import (
	"bytes"
	"context"
	endian "encoding/binary"
	"fmt"
	"sync"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// Checker checks a job's proofs as a client would, and as `prooflane
// verify` does: with the family's verifying key from the key cache the
// workers use (or the user's own), and the public inputs against the
// ones the job should have (not only the ones the service sent): for a
// built-in circuit, those the job's seed gives each partition; for an
// added circuit, the public part of the partition's witness. It is safe
// for concurrent use.
type Checker struct {
	// KeysDir is the key cache the service's workers use.
	KeysDir string
	// Circuit is the added circuit whose jobs are checked (AddCircuit's
	// answer); nil for built-in circuits' jobs.
	Circuit *pb.CircuitInfo
	// VKFile, when set, is the verifying key file the added circuit's
	// proofs are checked against (the user's own), instead of the key
	// cache's.
	VKFile string
	// Uploaded are the uploaded witnesses the jobs name, by their
	// upload name.
	Uploaded map[string][]byte

	mu  sync.Mutex
	vks map[keyID]family.VerifyingKey
}

// Check verifies the proofs of a job of spec.
func (c *Checker) Check(spec *pb.JobSpec, proofs []*pb.Proof) error {
	if spec.CircuitId != "" {
		return c.checkCircuit(spec, proofs)
	}
	s := Spec{Pipeline: spec.Pipeline, PipelineYAML: spec.PipelineYaml, Circuit: spec.Circuit, Size: int(spec.Size), Curve: spec.Curve, CommitmentHash: spec.CommitmentHash}
	if s.Circuit == "" {
		s.Circuit = workloads.Default
	}
	p, fp, err := specPipeline(s)
	if err != nil {
		return err
	}
	n := int(spec.Partitions)
	if n == 0 {
		n = p.Partitions
	}
	if len(proofs) != n {
		return fmt.Errorf("%d proofs, want %d", len(proofs), n)
	}
	vk, err := c.verifyingKey(fp, s, "")
	if err != nil {
		return err
	}
	for _, pr := range proofs {
		if int(pr.Partition) >= n {
			return fmt.Errorf("partition %d: out of the job's %d", pr.Partition, n)
		}
		if err := workloads.CheckPublic(s.curve(), s.Circuit, s.Size, spec.Seed, int(pr.Partition), pr.PublicWitness); err != nil {
			return fmt.Errorf("partition %d: %w", pr.Partition, err)
		}
		if err := vk.Verify(family.Files{Proof: pr.Proof, Public: pr.PublicWitness}); err != nil {
			return fmt.Errorf("partition %d: %w", pr.Partition, err)
		}
	}
	return nil
}

// verifyingKey is fp's verifying key of s's key: file's when it is set,
// else the key cache's; read once. It checks proofs whose commitments
// were hashed with s's CommitmentHash.
func (c *Checker) verifyingKey(fp family.Prover, s Spec, file string) (family.VerifyingKey, error) {
	vk, err := c.readVerifyingKey(fp, s, file)
	if err != nil {
		return nil, err
	}
	return family.VerifyingKeyWithHash(vk, family.CommitmentHash(s.CommitmentHash))
}

func (c *Checker) readVerifyingKey(fp family.Prover, s Spec, file string) (family.VerifyingKey, error) {
	id := keyID{fp.Name(), s.Circuit, s.Size, s.Curve, file}
	c.mu.Lock()
	vk, ok := c.vks[id]
	c.mu.Unlock()
	if ok {
		return vk, nil
	}
	vk, err := fp.VerifyingKey(context.Background(), keyRequest(s, c.KeysDir), file, 0)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.vks == nil {
		c.vks = map[keyID]family.VerifyingKey{}
	}
	c.vks[id] = vk
	c.mu.Unlock()
	return vk, nil
}

// checkCircuit verifies the proofs of a job of the added circuit: each
// against the verifying key (VKFile's, else the key cache's) and the
// public part of its partition's witness.
func (c *Checker) checkCircuit(spec *pb.JobSpec, proofs []*pb.Proof) error {
	ci := c.Circuit
	if ci == nil || ci.CircuitId != spec.CircuitId {
		return fmt.Errorf("circuit %s: not the checker's circuit", spec.CircuitId)
	}
	s := Spec{Pipeline: spec.Pipeline, PipelineYAML: spec.PipelineYaml, Circuit: ci.CircuitId, Size: int(ci.Constraints), Curve: ci.Curve, CommitmentHash: spec.CommitmentHash}
	if s.Pipeline == "" && s.PipelineYAML == "" {
		s.Pipeline = ci.Pipeline
	}
	_, fp, err := specPipeline(s)
	if err != nil {
		return err
	}
	if len(proofs) != len(spec.Witnesses) {
		return fmt.Errorf("%d proofs, want %d (one a witness)", len(proofs), len(spec.Witnesses))
	}
	vk, err := c.verifyingKey(fp, s, c.VKFile)
	if err != nil {
		return err
	}
	for _, pr := range proofs {
		p := int(pr.Partition)
		if p >= len(spec.Witnesses) {
			return fmt.Errorf("partition %d: out of the job's %d", p, len(spec.Witnesses))
		}
		w := spec.Witnesses[p]
		data := w.GetData()
		if up := w.GetUpload(); up != "" {
			data = c.Uploaded[up]
		}
		want, err := publicPart(data, int(ci.PublicInputs))
		if err != nil {
			return fmt.Errorf("partition %d: witness: %w", p, err)
		}
		if !bytes.Equal(want, pr.PublicWitness) {
			return fmt.Errorf("partition %d: not the public inputs of the partition's witness", p)
		}
		if err := vk.Verify(family.Files{Proof: pr.Proof, Public: pr.PublicWitness}); err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
	}
	return nil
}

// publicPart is the public witness (gnark's encoding) of a full witness's
// encoding with nbPublic public inputs: the three counts of its header
// (public, secret, all: 4 bytes each, big endian) made nbPublic, 0 and
// nbPublic, then its first nbPublic elements.
func publicPart(full []byte, nbPublic int) ([]byte, error) {
	if len(full) < 12 {
		return nil, fmt.Errorf("%d bytes, shorter than a witness's header", len(full))
	}
	n := int(endian.BigEndian.Uint32(full[8:]))
	if n == 0 || nbPublic > n || (len(full)-12)%n != 0 {
		return nil, fmt.Errorf("%d bytes for %d inputs: not a full witness of %d public inputs", len(full), n, nbPublic)
	}
	size := (len(full) - 12) / n
	out := make([]byte, 12, 12+nbPublic*size)
	endian.BigEndian.PutUint32(out, uint32(nbPublic))
	endian.BigEndian.PutUint32(out[8:], uint32(nbPublic))
	return append(out, full[12:12+nbPublic*size]...), nil
}
