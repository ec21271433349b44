package workloads

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/internal/suggest"
)

// Instance is one circuit at one size.
type Instance interface {
	// Circuit returns the placeholder to compile.
	Circuit() frontend.Circuit
	// Assignment returns a satisfying full assignment derived from seed.
	Assignment(seed uint64) frontend.Circuit
	// Unsatisfied returns Assignment(seed) with its public output off by
	// one, so that the final equality constraint fails.
	Unsatisfied(seed uint64) frontend.Circuit
	// Constraints is the exact number of R1CS constraints Circuit()
	// compiles to over its curve's field: what a cached constraint system
	// of the instance has. Most circuits have it without compiling at
	// their size (at most a few small compiles); emulated compiles (its
	// count follows gnark's choices inside its gadgets).
	Constraints() int
	// Curve is the curve whose scalar field the instance is over: its
	// assignments' values and its constraint count are that field's.
	Curve() ecc.ID
}

// onCurve is an instance's curve.
type onCurve struct{ curve ecc.ID }

func (c onCurve) Curve() ecc.ID { return c.curve }

// Kind builds circuits of one kind.
type Kind struct {
	// Name is the registry key, used by --circuit and in key file names.
	Name string
	// Doc is one line shown by the CLI.
	Doc string
	// New returns the instance of about size constraints (size >= MinSize)
	// over curve's scalar field.
	New func(curve ecc.ID, size int) (Instance, error)
	// MinSize is the smallest size New accepts.
	MinSize int
}

var kinds = map[string]Kind{}

// Default is the circuit a request that names none proves.
const Default = "chain"

func register(f Kind) {
	if _, dup := kinds[f.Name]; dup {
		panic("workloads: circuit registered twice: " + f.Name)
	}
	kinds[f.Name] = f
}

// Names returns the registered circuit names, sorted.
func Names() []string {
	out := make([]string, 0, len(kinds))
	for n := range kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the circuit kind called name, or an error listing the names and
// suggesting the closest.
func Lookup(name string) (Kind, error) {
	f, ok := kinds[name]
	if !ok {
		hint := ""
		if c := suggest.Closest(name, Names()); c != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", c)
		}
		return Kind{}, fmt.Errorf("unknown circuit %q%s; have %v", name, hint, Names())
	}
	return f, nil
}

// New looks up the circuit kind called name and builds its instance of about
// size constraints over curve's scalar field (ecc.UNKNOWN: BLS12-381, the
// default curve; BN254 the other).
func New(curve ecc.ID, name string, size int) (Instance, error) {
	f, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if size < f.MinSize {
		return nil, fmt.Errorf("circuit %q: size %d below the minimum %d", name, size, f.MinSize)
	}
	if curve == ecc.UNKNOWN {
		curve = ecc.BLS12_381
	}
	if curve != ecc.BLS12_381 && curve != ecc.BN254 {
		return nil, fmt.Errorf("circuit %q: no built-in circuits on %s", name, curve)
	}
	return f.New(curve, size)
}

// Witness returns the full witness of assignment on BLS12-381.
func Witness(assignment frontend.Circuit) (witness.Witness, error) {
	return WitnessOf(ecc.BLS12_381, assignment)
}

// WitnessOf returns the full witness of assignment over curve's scalar
// field.
func WitnessOf(curve ecc.ID, assignment frontend.Circuit) (witness.Witness, error) {
	w, err := frontend.NewWitness(assignment, curve.ScalarField())
	if err != nil {
		return nil, fmt.Errorf("new witness: %w", err)
	}
	return w, nil
}

// PartitionSeed derives the seed of partition p of a job seeded with job.
func PartitionSeed(job uint64, p int) uint64 {
	r := rand.New(rand.NewPCG(job, uint64(p)+0x9e3779b97f4a7c15))
	return r.Uint64()
}

// PartitionPublic returns the public witness of partition p of a job of
// inst seeded with job: what a verifier checks that partition's proof
// against.
func PartitionPublic(inst Instance, job uint64, p int) (witness.Witness, error) {
	w, err := WitnessOf(inst.Curve(), inst.Assignment(PartitionSeed(job, p)))
	if err != nil {
		return nil, err
	}
	return w.Public()
}

func rng(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x70726f6f666c616e))
}
