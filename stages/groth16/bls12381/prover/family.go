// Package prover is the Groth16 proof family as the library, the commands
// and the service drive it (family.Prover): keys for a constraint system
// in the key cache (stages/groth16/keys) or the user's own, jobs of
// witnesses, the proof directory's files (proof-N.bin, public-N.bin,
// vk.bin) and their verifier.
//
// It is a package of its own, not part of stages/groth16, because keys
// imports groth16 (a key set builds a groth16.Job) and the family needs
// keys.
//
// The files, in gnark's serialization: proof-N.bin is Proof.WriteTo
// (compressed points), public-N.bin the public witness's WriteTo, vk.bin
// VerifyingKey.WriteTo. Reading them checks the lengths they declare
// against their size before gnark decodes them (gnark's decoders allocate
// what a length prefix says), then the proof with gnark's verifier
// against the public inputs.
package prover

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/stages/family"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	"github.com/prooflane/prooflane/workloads"
)

const (
	// MaxSize bounds a key's size: 2^28 constraints. The FFT domain and
	// proving key grow with it (a 2^28 key is tens of GiB).
	MaxSize = 1 << 28
	// VKFile is the verifying key's name in a proof directory.
	VKFile = "vk.bin"
)

// Family is the Groth16 family: groth16.Family (its name and proof type)
// with its keys, jobs, files and verifier.
type Family struct{ groth16.Family }

// MaxSize is 2^28 constraints.
func (Family) MaxSize() int { return MaxSize }

// Layout: public-N.bin beside each proof, and vk.bin.
func (Family) Layout() family.Layout { return family.Layout{Public: true, VK: VKFile} }

// Compile compiles c to a BLS12-381 R1CS (keys.CompileCircuit); another
// curve is refused.
func (Family) Compile(curve ecc.ID, name string, c frontend.Circuit) (constraint.ConstraintSystem, error) {
	if err := checkCurve(curve); err != nil {
		return nil, err
	}
	return keys.CompileCircuit(name, c)
}

// checkCurve refuses a curve other than the family's.
func checkCurve(c ecc.ID) error {
	if family.CurveOf(c) != groth16.Curve {
		return family.WrongCurve("this groth16 prover", groth16.Curve, c)
	}
	return nil
}

// ReadSystem reads an R1CS file (keys.ReadR1CS), refusing what the stages
// cannot prove.
func (Family) ReadSystem(ctx context.Context, curve ecc.ID, path string) (constraint.ConstraintSystem, error) {
	if err := checkCurve(curve); err != nil {
		return nil, err
	}
	sys, err := keys.ReadR1CS(ctx, path, family.MaxSystemFile)
	if err != nil {
		return nil, err
	}
	if err := groth16.CheckSupported(path, sys); err != nil {
		return nil, err
	}
	return sys, nil
}

// r1csOf returns sys's R1CS, refusing another system's type.
func r1csOf(sys family.System) (*cs.R1CS, error) {
	r, ok := sys.CCS.(*cs.R1CS)
	if !ok {
		return nil, fmt.Errorf("constraint system %s is a %T, want a BLS12-381 R1CS (compiled with r1cs.NewBuilder) for groth16", sys, sys.CCS)
	}
	return r, nil
}

// Setup loads the keys of req from its cache, or runs the setup and saves
// them (saying so on log); with req.Force it runs the setup whatever the
// cache holds and replaces the keys. A built-in circuit (no CCS) is
// compiled, or its cached compiled copy reused (keys.Cache.Setup); a
// compiled system is keyed as it is. With req.Backend the keys are made
// by prooflane's own setup, the bases on its device 0 (keys.SetupOn);
// without, by gnark's. Cancelling ctx stops the setup, writing nothing.
func (f Family) Setup(ctx context.Context, req family.KeyRequest, log io.Writer) (family.Key, error) {
	if err := f.check(req.System); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	cache := keys.Cache{Dir: req.Dir}
	sys := req.System
	if sys.CCS == nil {
		if !req.Force {
			s, err := cache.LoadOrSetupOn(ctx, sys.Name, sys.Size, req.Backend, log)
			if err != nil {
				return nil, err
			}
			return newKey(s, cache), nil
		}
		fmt.Fprintf(log, "setting up circuit %q size %d (Ctrl-C stops it, writing nothing)\n", sys.Name, sys.Size)
		s, _, err := cache.Setup(ctx, sys.Name, sys.Size, req.Backend, log)
		if err != nil {
			return nil, err
		}
		return newKey(s, cache), nil
	}
	r1cs, err := r1csOf(sys)
	if err != nil {
		return nil, err
	}
	if err := groth16.CheckSupported(sys.Name, r1cs); err != nil {
		return nil, err
	}
	make := func() (*keys.Set, error) { return keys.SetupSystem(ctx, sys.Name, r1cs, req.Backend, log) }
	if !req.Force {
		s, err := cache.LoadOrMake(ctx, sys.Name, sys.Size, log, make)
		if err != nil {
			return nil, err
		}
		return newKey(s, cache), nil
	}
	fmt.Fprintf(log, "setting up constraint system %s (Ctrl-C stops it, writing nothing)\n", sys)
	s, err := make()
	if err != nil {
		return nil, err
	}
	if err := cache.Save(s); err != nil {
		return nil, err
	}
	return newKey(s, cache), nil
}

// check checks a system's size and, for a built-in circuit, its name.
func (Family) check(sys family.System) error {
	if sys.Size < 1 || sys.Size > MaxSize {
		return fmt.Errorf("groth16 %s: size %d, want 1 to %d", sys, sys.Size, MaxSize)
	}
	if sys.CCS == nil && !family.IsCompiled(sys.Name) {
		if _, err := workloads.Lookup(sys.Name); err != nil {
			return err
		}
	}
	return nil
}

// Load reads the keys of req from its cache: an error wrapping
// family.ErrNotCached (and keys.ErrNotCached) when a file is missing.
func (f Family) Load(ctx context.Context, req family.KeyRequest) (family.Key, error) {
	if err := f.check(req.System); err != nil {
		return nil, err
	}
	cache := keys.Cache{Dir: req.Dir}
	s, err := cache.Load(ctx, req.System.Name, req.System.Size)
	if err != nil {
		return nil, notCached(err)
	}
	return newKey(s, cache), nil
}

// ReadKeys reads the user's own keys for sys (keys.ReadUserKeys).
func (f Family) ReadKeys(ctx context.Context, sys family.System, pkFile, vkFile string) (family.Key, error) {
	r1cs, err := r1csOf(sys)
	if err != nil {
		return nil, err
	}
	if err := groth16.CheckSupported(sys.Name, r1cs); err != nil {
		return nil, err
	}
	pk, vk, err := keys.ReadUserKeys(ctx, sys.Name, r1cs, pkFile, vkFile)
	if err != nil {
		return nil, err
	}
	k := newKey(&keys.Set{Circuit: sys.Name, Size: sys.Size, R1CS: r1cs, PK: pk, VK: vk}, keys.Cache{})
	k.files = []string{pkFile, vkFile}
	k.vk.from = vkFile
	return k, nil
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

// Key is a key set, as family.Key.
type Key struct {
	Set   *keys.Set
	files []string
	vk    *verifyingKey
}

func newKey(s *keys.Set, cache keys.Cache) *Key {
	r, p, v := cache.Paths(s.Circuit, s.Size)
	k := &Key{Set: s, files: []string{r, p, v}, vk: newVerifyingKey(s.VK, "")}
	k.vk.from = "key " + k.Name()
	if cache.Dir != "" {
		k.vk.from = v
	}
	return k
}

// Name is family.KeyName of the key's system and verifying key.
func (k *Key) Name() string { return family.KeyName(k.System(), k.vk.bytes) }

// System is the key's constraint system.
func (k *Key) System() family.System {
	return family.System{Name: k.Set.Circuit, Size: k.Set.Size, CCS: k.Set.R1CS, Curve: groth16.Curve}
}

// Constraints is the constraint system's count.
func (k *Key) Constraints() int { return k.Set.R1CS.GetNbConstraints() }

// Inputs are the R1CS's inputs a full witness holds.
func (k *Key) Inputs() family.Inputs { return Family{}.Inputs(k.Set.R1CS) }

// Inputs are an R1CS's inputs a full witness holds: the public ones
// without the constant one, and the secret ones.
func (Family) Inputs(ccs constraint.ConstraintSystem) family.Inputs {
	return family.Inputs{Public: ccs.GetNbPublicVariables() - 1, Secret: ccs.GetNbSecretVariables()}
}

// Files are the key's files: the cache's constraint system, proving key
// and verifying key, or the user's key files.
func (k *Key) Files() []string { return k.files }

// VerifyingKey is the key's verifying key.
func (k *Key) VerifyingKey() family.VerifyingKey { return k.vk }

// NewJob builds the job of the witnesses, one partition each.
func (k *Key) NewJob(ws []witness.Witness) (family.Job, error) {
	in := k.Inputs()
	for i, w := range ws {
		if w == nil {
			return nil, fmt.Errorf("witness %d: missing", i)
		}
		pub, sec, err := counts(w)
		if err != nil {
			return nil, fmt.Errorf("witness %d: %w", i, err)
		}
		if pub != in.Public || sec != in.Secret {
			return nil, fmt.Errorf("witness %d: %d public and %d secret inputs, the constraint system %s has %d and %d", i, pub, sec, k.Set.Circuit, in.Public, in.Secret)
		}
	}
	j, err := groth16.NewJob(k.Set.Circuit, k.Set.R1CS, k.Set.PK, k.Set.VK, ws)
	if err != nil {
		return nil, err
	}
	return &Job{Job: j, key: k}, nil
}

// counts returns a full witness's public and secret input counts.
func counts(w witness.Witness) (pub, sec int, err error) {
	p, err := w.Public()
	if err != nil {
		return 0, 0, err
	}
	pv, ok1 := p.Vector().(interface{ Len() int })
	all, ok2 := w.Vector().(interface{ Len() int })
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("a witness of another field (%T)", w.Vector())
	}
	return pv.Len(), all.Len() - pv.Len(), nil
}

var (
	_ family.Prover          = Family{}
	_ family.MemoryEstimator = Family{}
	_ family.Key             = (*Key)(nil)
)
