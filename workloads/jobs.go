package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/stages/family"
)

// System is the built-in circuit's system at size on curve as a proof
// family's key request names it: the family compiles it (or reuses its
// compiled copy in the key cache). The circuit must be registered and
// size at least its minimum; the family checks its own maximum.
func System(curve ecc.ID, circuit string, size int) (family.System, error) {
	k, err := Lookup(circuit)
	if err != nil {
		return family.System{}, err
	}
	if size < k.MinSize {
		return family.System{}, fmt.Errorf("circuit %q: size %d below the minimum %d", circuit, size, k.MinSize)
	}
	return family.System{Name: circuit, Size: size, Curve: curve}, nil
}

// Witnesses returns the full witnesses of n partitions of a job of
// circuit at size seeded with seed: partition p's from PartitionSeed(seed,
// p), made one partition a core (a chain assignment walks its steps one
// after another: 0.14 s a partition at 2^22 on a 2-core machine, four
// times that at 2^24). With unsatisfied, every one breaks the circuit's
// final equality (for tests of errors).
func Witnesses(curve ecc.ID, circuit string, size, n int, seed uint64, unsatisfied bool) ([]witness.Witness, error) {
	if n <= 0 {
		return nil, fmt.Errorf("circuit %q: %d partitions, want at least 1", circuit, n)
	}
	inst, err := New(curve, circuit, size)
	if err != nil {
		return nil, err
	}
	ws := make([]witness.Witness, n)
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for p := range ws {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ps := PartitionSeed(seed, p)
			a := inst.Assignment(ps)
			if unsatisfied {
				a = inst.Unsatisfied(ps)
			}
			if ws[p], errs[p] = WitnessOf(inst.Curve(), a); errs[p] != nil {
				errs[p] = fmt.Errorf("circuit %q partition %d: %w", circuit, p, errs[p])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ws, nil
}

// Job is key's job of n partitions of its built-in circuit seeded with
// seed (Witnesses).
func Job(key family.Key, n int, seed uint64) (family.Job, error) {
	sys := key.System()
	ws, err := Witnesses(sys.Curve, sys.Name, sys.Size, n, seed, false)
	if err != nil {
		return nil, err
	}
	return key.NewJob(ws)
}

// CheckPublic checks a partition's public inputs file against the ones
// the seed gives partition p of a job of circuit at size: a directory of
// a built-in circuit's proofs is checked against its manifest's seed, not
// only against its own public files.
func CheckPublic(curve ecc.ID, circuit string, size int, seed uint64, p int, public []byte) error {
	inst, err := New(curve, circuit, size)
	if err != nil {
		return err
	}
	pub, err := PartitionPublic(inst, seed, p)
	if err != nil {
		return err
	}
	want, err := pub.MarshalBinary()
	if err != nil {
		return err
	}
	if !bytes.Equal(public, want) {
		return fmt.Errorf("not the public inputs of circuit %q size %d seed %d partition %d", circuit, size, seed, p)
	}
	return nil
}
