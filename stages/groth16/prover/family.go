// Package prover is the Groth16 proof family as the commands drive it
// (family.Prover): the shipped circuits, their keys in the key cache
// (stages/groth16/keys), jobs, the proof directory's files (proof-N.bin,
// public-N.bin, vk.bin) and their verifier.
//
// It is a package of its own, not part of stages/groth16, because keys
// imports groth16 (a key set builds a groth16.Job) and the family needs
// keys.
//
// The files, in gnark's serialization: proof-N.bin is Proof.WriteTo
// (compressed points), public-N.bin the public witness's WriteTo, vk.bin
// VerifyingKey.WriteTo. Reading them checks the lengths they declare
// against their size before gnark decodes them (gnark's decoders allocate
// what a length prefix says), then that the public inputs are the ones the
// circuit, size and seed give the partition, then the proof with gnark's
// verifier.
package prover

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
	"github.com/prooflane/prooflane/workloads"
)

const (
	// DefaultCircuit is the circuit a request without one gets.
	DefaultCircuit = "chain"
	// MaxSize bounds a key's size: 2^28 constraints. The chain circuit's
	// FFT domain and proving key grow with it (a 2^28 key is tens of
	// GiB).
	MaxSize = 1 << 28
	// VKFile is the verifying key's name in a proof directory.
	VKFile = "vk.bin"
)

// Family is the Groth16 family: groth16.Family (its name and proof type)
// with its keys, jobs, files and verifier.
type Family struct{ groth16.Family }

// Circuits are the shipped circuits, DefaultCircuit first.
func (Family) Circuits() []string {
	names := []string{DefaultCircuit}
	for _, n := range workloads.Names() {
		if n != DefaultCircuit {
			names = append(names, n)
		}
	}
	return names
}

// SizeRange is the circuit's minimum size to MaxSize.
func (Family) SizeRange(circuit string) (int, int, error) {
	if circuit == "" {
		circuit = DefaultCircuit
	}
	c, err := workloads.Lookup(circuit)
	if err != nil {
		return 0, 0, err
	}
	return c.MinSize, MaxSize, nil
}

// Layout: public-N.bin beside each proof, and vk.bin.
func (Family) Layout() family.Layout { return family.Layout{Public: true, VK: VKFile} }

// Setup loads the keys of req from its cache, or runs the setup and saves
// them (saying so on log); with req.Force it runs the setup whatever the
// cache holds and replaces the keys (keys.Cache.Setup: for the cache's
// compiled circuit when its .r1cs is whole, without compiling again). A
// corrupt cache is an error without Force. With req.Backend the keys are
// made by prooflane's own setup, the bases on its device 0
// (keys.SetupOn); without, by gnark's. Cancelling ctx stops the setup,
// writing nothing.
func (f Family) Setup(ctx context.Context, req family.KeyRequest, log io.Writer) (family.Key, error) {
	circuit, err := family.CheckCircuit(f, req)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	cache := keys.Cache{Dir: req.Dir}
	if !req.Force {
		s, err := cache.LoadOrSetupOn(ctx, circuit, req.Size, req.Backend, log)
		if err != nil {
			return nil, err
		}
		return &Key{Set: s, cache: cache}, nil
	}
	fmt.Fprintf(log, "setting up circuit %q size %d (Ctrl-C stops it, writing nothing)\n", circuit, req.Size)
	s, _, err := cache.Setup(ctx, circuit, req.Size, req.Backend, log)
	if err != nil {
		return nil, err
	}
	return &Key{Set: s, cache: cache}, nil
}

// Load reads the keys of req from its cache: an error wrapping
// family.ErrNotCached (and keys.ErrNotCached) when a file is missing.
func (f Family) Load(ctx context.Context, req family.KeyRequest) (family.Key, error) {
	circuit, err := family.CheckCircuit(f, req)
	if err != nil {
		return nil, err
	}
	cache := keys.Cache{Dir: req.Dir}
	s, err := cache.Load(ctx, circuit, req.Size)
	if err != nil {
		return nil, notCached(err)
	}
	return &Key{Set: s, cache: cache}, nil
}

// notCached makes a keys.ErrNotCached error a family.ErrNotCached one too.
func notCached(err error) error {
	if errors.Is(err, keys.ErrNotCached) {
		return cacheMiss{err}
	}
	return err
}

type cacheMiss struct{ err error }

func (e cacheMiss) Error() string   { return e.err.Error() }
func (e cacheMiss) Unwrap() []error { return []error{e.err, family.ErrNotCached} }

// Key is a key set in a cache, as family.Key.
type Key struct {
	Set   *keys.Set
	cache keys.Cache
}

// Name is the circuit, size and a digest of the verifying key: two setups
// of one circuit and size have different names.
func (k *Key) Name() string {
	return fmt.Sprintf("%s-%d/%s", k.Set.Circuit, k.Set.Size, vkDigest(k.Set.VK))
}

// Circuit is the key's circuit.
func (k *Key) Circuit() string { return k.Set.Circuit }

// Constraints is the constraint system's count.
func (k *Key) Constraints() int { return k.Set.R1CS.GetNbConstraints() }

// Files are the cache's constraint system, proving key and verifying key
// files.
func (k *Key) Files() []string {
	r, p, v := k.cache.Paths(k.Set.Circuit, k.Set.Size)
	return []string{r, p, v}
}

// NewJob builds the job of partitions witnesses from seed.
func (k *Key) NewJob(partitions int, seed uint64) (family.Job, error) {
	j, err := k.Set.NewJob(partitions, seed)
	if err != nil {
		return nil, err
	}
	return &Job{Job: j, set: k.Set}, nil
}

var (
	_ family.Prover          = Family{}
	_ family.MemoryEstimator = Family{}
	_ family.Key             = (*Key)(nil)
)
