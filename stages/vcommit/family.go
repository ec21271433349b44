package vcommit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/stages/family"
)

// Circuits is nil: a vcommit key has a size, no circuit.
func (Family) Circuits() []string { return nil }

// SizeRange is 1 to MaxSize bases; any circuit is refused.
func (f Family) SizeRange(circuit string) (int, int, error) {
	if circuit != "" {
		return 0, 0, fmt.Errorf("circuit %q: the %s family has no circuits", circuit, f.Name())
	}
	return 1, MaxSize, nil
}

// Layout: proofs only, no public inputs and no verifying key file.
func (Family) Layout() family.Layout { return family.Layout{} }

// Setup loads or makes the key of req.Size bases in req.Dir. With Force
// it makes one only when none is cached: a cached key is not replaced
// (family.ErrNoForce), a corrupt one is an error.
func (f Family) Setup(_ context.Context, req family.KeyRequest, log io.Writer) (family.Key, error) {
	if err := f.check(req); err != nil {
		return nil, err
	}
	c := Cache{Dir: req.Dir}
	if req.Force {
		_, err := c.Load(req.Size)
		if err == nil {
			return nil, fmt.Errorf("the %s family's %w", f.Name(), family.ErrNoForce)
		}
		if !errors.Is(err, ErrNotCached) {
			return nil, err
		}
	}
	k, err := c.LoadOrSetup(req.Size, log)
	if err != nil {
		return nil, err
	}
	return key{k, c}, nil
}

// Load loads the key of req.Size bases from req.Dir; ErrNotCached when it
// is not there.
func (f Family) Load(_ context.Context, req family.KeyRequest) (family.Key, error) {
	if err := f.check(req); err != nil {
		return nil, err
	}
	k, err := Cache{Dir: req.Dir}.Load(req.Size)
	if err != nil {
		return nil, err
	}
	return key{k, Cache{Dir: req.Dir}}, nil
}

// Verifier loads the cache's key and checks that it is the one the
// manifest names.
func (f Family) Verifier(_ context.Context, req family.VerifyRequest) (family.Verifier, error) {
	if err := f.check(req.KeyRequest); err != nil {
		return nil, err
	}
	k, err := Cache{Dir: req.Dir}.Load(req.Size)
	if err != nil {
		return nil, fmt.Errorf("%s proofs in %s: %w (give --keys the cache the proofs were made with)", f.Name(), filepath.Dir(req.Manifest), err)
	}
	if k.Name != req.Key {
		return nil, fmt.Errorf("%s: key is %q, but the key cache %s holds %q for size %d: the proofs were made with another key",
			req.Manifest, req.Key, req.Dir, k.Name, req.Size)
	}
	j, err := NewJob(k, req.Partitions, req.Seed)
	if err != nil {
		return nil, err
	}
	return verifier{job{j}}, nil
}

func (f Family) check(req family.KeyRequest) error {
	_, err := family.CheckCircuit(f, req)
	return err
}

// key is a *Key as stages/family sees it, with the cache it is in.
type key struct {
	k     *Key
	cache Cache
}

func (k key) Name() string     { return k.k.Name }
func (k key) Circuit() string  { return Family{}.Name() } // a vcommit key has no circuit
func (k key) Constraints() int { return len(k.k.Bases) }  // its size
func (k key) Files() []string  { return []string{k.cache.Path(len(k.k.Bases))} }
func (k key) NewJob(partitions int, seed uint64) (family.Job, error) {
	j, err := NewJob(k.k, partitions, seed)
	if err != nil {
		return nil, err
	}
	return job{j}, nil
}

// job is a *Job as stages/family sees it, and verify's verifier: the
// proofs are recomputed from the key.
type job struct{ j *Job }

// Payload is the *Job the commit stage reads.
func (j job) Payload() any { return j.j }

// Files encodes the commit stage's output as the proof file.
func (j job) Files(partition int, output any) (family.Files, error) {
	p, ok := output.(*curve.G1Affine)
	if !ok || p == nil {
		return family.Files{}, fmt.Errorf("partition %d: output %T, want the commitment (*bls12381.G1Affine)", partition, output)
	}
	return family.Files{Proof: EncodeProof(p)}, nil
}

// Verify decodes and verifies a proof file's contents; a public inputs
// file is refused (the family writes none).
func (j job) Verify(partition int, f family.Files) error {
	if f.Public != nil {
		return fmt.Errorf("vcommit partition %d: a public inputs file, which the family does not write", partition)
	}
	p, err := DecodeProof(f.Proof)
	if err != nil {
		return err
	}
	return j.j.Verify(partition, p)
}

// VK is nil: the family writes no verifying key file.
func (j job) VK() ([]byte, error) { return nil, nil }

// verifier is verify's job: the proofs are recomputed from the key.
type verifier struct{ job }

// From names the key the proofs are checked with.
func (v verifier) From() string { return "key " + v.j.Key.Name }

// VK is nil: there is no verifying key file.
func (v verifier) VK() []byte { return nil }

var (
	_ family.Prover   = Family{}
	_ family.Verifier = verifier{}
)
