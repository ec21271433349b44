package service

import (
	"context"
	"fmt"
	"sync"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

// Checker checks a job's proofs as a client would, and as `prooflane
// verify` does: with the family's verifier (gnark's, for Groth16), from the
// key cache the workers use, for the public inputs the job's seed gives
// each partition (not the ones the service sent). It is safe for
// concurrent use.
type Checker struct {
	// KeysDir is the key cache the service's workers use.
	KeysDir string

	mu    sync.Mutex
	names map[keyID]keyFacts
}

// keyFacts are what a verify request names of a key.
type keyFacts struct {
	name        string
	constraints int
}

// Check verifies the proofs of a job of spec.
func (c *Checker) Check(spec *pb.JobSpec, proofs []*pb.Proof) error {
	s := Spec{Pipeline: spec.Pipeline, PipelineYAML: spec.PipelineYaml, Circuit: spec.Circuit, Size: int(spec.Size)}
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
	ctx := context.Background()
	req := family.KeyRequest{Dir: c.KeysDir, Circuit: spec.Circuit, Size: int(spec.Size)}
	id := keyID{fp.Name(), spec.Circuit, int(spec.Size)}
	c.mu.Lock()
	facts, ok := c.names[id]
	c.mu.Unlock()
	if !ok {
		k, err := fp.Load(ctx, req)
		if err != nil {
			return err
		}
		facts = keyFacts{k.Name(), k.Constraints()}
		c.mu.Lock()
		if c.names == nil {
			c.names = map[keyID]keyFacts{}
		}
		c.names[id] = facts
		c.mu.Unlock()
	}
	v, err := fp.Verifier(ctx, family.VerifyRequest{KeyRequest: req, Manifest: "job of seed " + fmt.Sprint(spec.Seed),
		Key: facts.name, Constraints: facts.constraints, Partitions: n, Seed: spec.Seed})
	if err != nil {
		return err
	}
	for _, pr := range proofs {
		if int(pr.Partition) >= n {
			return fmt.Errorf("partition %d: out of the job's %d", pr.Partition, n)
		}
		if err := v.Verify(int(pr.Partition), family.Files{Proof: pr.Proof, Public: pr.PublicWitness}); err != nil {
			return fmt.Errorf("partition %d: %w", pr.Partition, err)
		}
	}
	return nil
}
