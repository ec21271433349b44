package service

import (
	"context"
	"fmt"
	"sync"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// Checker checks a job's proofs as a client would, and as `prooflane
// verify` does: with the family's verifying key from the key cache the
// workers use, and the public inputs against the ones the job's seed
// gives each partition (not only the ones the service sent). It is safe
// for concurrent use.
type Checker struct {
	// KeysDir is the key cache the service's workers use.
	KeysDir string

	mu  sync.Mutex
	vks map[keyID]family.VerifyingKey
}

// Check verifies the proofs of a job of spec.
func (c *Checker) Check(spec *pb.JobSpec, proofs []*pb.Proof) error {
	s := Spec{Pipeline: spec.Pipeline, PipelineYAML: spec.PipelineYaml, Circuit: spec.Circuit, Size: int(spec.Size)}
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
	id := keyID{fp.Name(), s.Circuit, s.Size}
	c.mu.Lock()
	vk, ok := c.vks[id]
	c.mu.Unlock()
	if !ok {
		if vk, err = fp.VerifyingKey(context.Background(), keyRequest(s, c.KeysDir), "", 0); err != nil {
			return err
		}
		c.mu.Lock()
		if c.vks == nil {
			c.vks = map[keyID]family.VerifyingKey{}
		}
		c.vks[id] = vk
		c.mu.Unlock()
	}
	for _, pr := range proofs {
		if int(pr.Partition) >= n {
			return fmt.Errorf("partition %d: out of the job's %d", pr.Partition, n)
		}
		if err := workloads.CheckPublic(s.Circuit, s.Size, spec.Seed, int(pr.Partition), pr.PublicWitness); err != nil {
			return fmt.Errorf("partition %d: %w", pr.Partition, err)
		}
		if err := vk.Verify(family.Files{Proof: pr.Proof, Public: pr.PublicWitness}); err != nil {
			return fmt.Errorf("partition %d: %w", pr.Partition, err)
		}
	}
	return nil
}
