package prover

import (
	"context"
	"errors"
	"fmt"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/keys"
	"github.com/prooflane/prooflane/workloads"
)

// Verifier returns the checker of a proof directory of req's circuit and
// size: with req.VKFile, against that verifying key; else against the key
// cache's, whose constraint system must have the manifest's constraint
// count. The directory's own vk.bin is never used unless named.
func (f Family) Verifier(ctx context.Context, req family.VerifyRequest) (family.Verifier, error) {
	circuit, err := family.CheckCircuit(f, req.KeyRequest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Manifest, err)
	}
	v := &verifier{circuit: circuit, size: req.Size, seed: req.Seed, partitions: req.Partitions}
	if req.VKFile != "" {
		if v.vk, err = keys.ReadVK(req.VKFile); err != nil {
			return nil, err
		}
		v.from = req.VKFile
	} else if err := v.fromCache(ctx, keys.Cache{Dir: req.Dir}, req); err != nil {
		return nil, err
	}
	if v.inst, err = workloads.New(circuit, req.Size); err != nil {
		return nil, fmt.Errorf("%s: %w", req.Manifest, err)
	}
	if v.vkBytes, err = encodeVK(v.vk); err != nil {
		return nil, err
	}
	return v, nil
}

// fromCache takes the cache's verifying key, and checks the manifest's
// constraint count against the cache's constraint system.
func (v *verifier) fromCache(ctx context.Context, cache keys.Cache, req family.VerifyRequest) error {
	vk, err := cache.LoadVK(v.circuit, v.size)
	if errors.Is(err, keys.ErrNotCached) {
		advice := ""
		if req.DirVK != "" {
			advice = fmt.Sprintf(" (the directory's own key only if you trust it: --vk %s)", req.DirVK)
		}
		return cacheMiss{fmt.Errorf("no verifying key for circuit %q size %d in the key cache %s: give --keys the cache the proofs were made with, or --vk FILE%s",
			v.circuit, v.size, cache.Dir, advice)}
	}
	if err != nil {
		return err
	}
	r1cs, err := cache.LoadR1CS(ctx, v.circuit, v.size)
	if err != nil {
		return err
	}
	if n := r1cs.GetNbConstraints(); n != req.Constraints {
		return fmt.Errorf("%s: constraints is %d, but circuit %q size %d has %d (the key cache's constraint system)",
			req.Manifest, req.Constraints, v.circuit, v.size, n)
	}
	_, _, v.from = cache.Paths(v.circuit, v.size)
	v.vk = vk
	return nil
}

// verifier checks a proof directory's partitions.
type verifier struct {
	circuit          string
	size, partitions int
	seed             uint64
	inst             workloads.Instance
	vk               *g16.VerifyingKey
	vkBytes          []byte
	from             string
}

// From is the verifying key file the proofs are checked with.
func (v *verifier) From() string { return v.from }

// VK is the verifying key's vk.bin bytes.
func (v *verifier) VK() []byte { return v.vkBytes }

// Verify checks partition's files: its proof verifies against its public
// inputs, and those are the ones the circuit, size and seed give the
// partition.
func (v *verifier) Verify(partition int, f family.Files) error {
	if partition < 0 || partition >= v.partitions {
		return fmt.Errorf("partition %d of %d", partition, v.partitions)
	}
	pub, err := workloads.PartitionPublic(v.inst, v.seed, partition)
	if err != nil {
		return err
	}
	return verifyFiles(v.vk, f, pub, func() string {
		return fmt.Sprintf("not the public inputs of circuit %q size %d seed %d partition %d", v.circuit, v.size, v.seed, partition)
	})
}
