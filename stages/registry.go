package stages

import (
	"fmt"
	"regexp"
	"sort"
)

var typeName = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// Registry maps type names to factories. It is built explicitly (see
// package builtin for the shipped list); tests build their own.
type Registry struct {
	byType map[string]*Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byType: map[string]*Factory{}}
}

// Register adds factories. A malformed type name, a missing constructor or
// a type registered twice is an error; nothing is added then.
func (r *Registry) Register(fs ...Factory) error {
	seen := map[string]bool{}
	for _, f := range fs {
		switch {
		case !typeName.MatchString(f.Type):
			return fmt.Errorf("stage type %q: want lower_snake_case names dotted by family, like \"groth16.prep_msm\"", f.Type)
		case f.New == nil:
			return fmt.Errorf("stage type %q: factory has no New", f.Type)
		case r.byType[f.Type] != nil || seen[f.Type]:
			return fmt.Errorf("stage type %q registered twice", f.Type)
		}
		seen[f.Type] = true
	}
	for _, f := range fs {
		f := f
		r.byType[f.Type] = &f
	}
	return nil
}

// MustRegister is Register for package-level lists known to be valid.
func (r *Registry) MustRegister(fs ...Factory) *Registry {
	if err := r.Register(fs...); err != nil {
		panic(err)
	}
	return r
}

// Lookup returns the factory for a type name.
func (r *Registry) Lookup(typ string) (*Factory, bool) {
	f, ok := r.byType[typ]
	return f, ok
}

// Types returns the registered type names, sorted.
func (r *Registry) Types() []string {
	out := make([]string, 0, len(r.byType))
	for t := range r.byType {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
