// Package family is the registry of proof families: the groups of stage
// types (groth16.*, ...) whose pipelines make proofs that prove, verify,
// setup and bench handle. A pipeline's family is found from its stage
// types' prefix, the part of each type before the dot; generic prefixes
// (sim.*) belong to no family.
//
// It sits under stages, beside builtin, because a family is a set of stage
// types plus what a command needs to turn their outputs into proofs; it
// imports runtime only to read a parsed pipeline, and runtime never imports
// it.
//
// What the commands need of a family is family.Prover (prover.go): its
// circuits and sizes, its keys (KeyRequest, Key), its jobs and their files
// (Job, Files, Layout) and verify's checker (Verifier), with two optional
// capabilities (Baseline, MemoryEstimator). prove, verify, setup and bench
// name no family: they drive each through this package.
package family

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/prooflane/prooflane/stages"
)

// Family is what the commands need from a proof family.
type Family interface {
	// Name is the family's stage type prefix: "groth16" for the
	// groth16.* types.
	Name() string
	// ProofType is the data type a stage outputs when its output is one
	// of the family's proofs; a pipeline of the family has a final stage
	// (one no other stage needs) with this output.
	ProofType() stages.DataType
}

// Generic are the stage type prefixes that belong to no family: a pipeline
// may mix them with one family's types.
var Generic = []string{"sim"}

// Registry holds families by name.
type Registry struct {
	byName map[string]Family
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]Family{}} }

// Register adds families; a name registered twice, empty, generic or with
// a dot in it is an error.
func (r *Registry) Register(fs ...Family) error {
	for _, f := range fs {
		n := f.Name()
		switch {
		case n == "" || strings.Contains(n, "."):
			return fmt.Errorf("family name %q: want a stage type prefix, non-empty and without a dot", n)
		case slices.Contains(Generic, n):
			return fmt.Errorf("family name %q: a generic stage type prefix, not a family", n)
		case r.byName[n] != nil:
			return fmt.Errorf("family %q registered twice", n)
		}
		r.byName[n] = f
	}
	return nil
}

// MustRegister is Register that panics, for registries built at init.
func (r *Registry) MustRegister(fs ...Family) *Registry {
	if err := r.Register(fs...); err != nil {
		panic(err)
	}
	return r
}

// Lookup returns the family of that name.
func (r *Registry) Lookup(name string) (Family, bool) {
	f, ok := r.byName[name]
	return f, ok
}

// Names returns the registered families' names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
