package service

import (
	"bytes"
	"fmt"
	"sync"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// Groth16Checker checks a Groth16 job's proofs as a client would: with
// gnark's verifier, the verifying key from a key cache, and the public
// witnesses made from the job's seed (not the ones the service sent).
type Groth16Checker struct {
	// KeysDir is the key cache the service's workers use.
	KeysDir string

	mu  sync.Mutex
	vks map[keyID]*g16.VerifyingKey
}

// Check verifies proofs of spec; it is safe for concurrent use.
func (c *Groth16Checker) Check(spec *pb.JobSpec, proofs []*pb.Proof) error {
	if len(proofs) != int(spec.Partitions) {
		return fmt.Errorf("%d proofs, want %d", len(proofs), spec.Partitions)
	}
	id := keyID{"groth16", spec.Circuit, int(spec.Size)}
	c.mu.Lock()
	vk := c.vks[id]
	if vk == nil {
		var err error
		if vk, err = (keys.Cache{Dir: c.KeysDir}).LoadVK(spec.Circuit, int(spec.Size)); err != nil {
			c.mu.Unlock()
			return err
		}
		if c.vks == nil {
			c.vks = map[keyID]*g16.VerifyingKey{}
		}
		c.vks[id] = vk
	}
	c.mu.Unlock()
	ws, err := (&keys.Set{Circuit: spec.Circuit, Size: int(spec.Size)}).Witnesses(int(spec.Partitions), spec.Seed, false)
	if err != nil {
		return err
	}
	for _, p := range proofs {
		if int(p.Partition) >= len(ws) {
			return fmt.Errorf("partition %d: out of the job's %d", p.Partition, len(ws))
		}
		var proof g16.Proof
		if _, err := proof.ReadFrom(bytes.NewReader(p.Proof)); err != nil {
			return fmt.Errorf("partition %d: %w", p.Partition, err)
		}
		pub, err := ws[p.Partition].Public()
		if err != nil {
			return err
		}
		want, err := pub.MarshalBinary()
		if err != nil {
			return err
		}
		if !bytes.Equal(want, p.PublicWitness) {
			return fmt.Errorf("partition %d: the public witness is not the seed's", p.Partition)
		}
		if err := groth16.VerifyProof(vk, &proof, pub); err != nil {
			return fmt.Errorf("partition %d: %w", p.Partition, err)
		}
	}
	return nil
}
