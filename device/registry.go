package device

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Factory opens the backends of one kind, by name, with options of the
// backend's own type (NewFactory), or says why this binary cannot
// (Unavailable).
type Factory struct {
	name  string
	open  func(devices int, opts any) (Backend, error)
	model func(opts any) (MemoryModel, error)
}

// NewFactory is the factory of the backends called name: open is their
// constructor, taking the devices a run places work on and the backend's
// options, of its own type O; model is the memory model of the backend
// open would make with the same options, known before it is opened.
func NewFactory[O any](name string, open func(devices int, opts O) (Backend, error), model func(opts O) MemoryModel) Factory {
	return Factory{
		name: name,
		open: func(devices int, opts any) (Backend, error) {
			o, err := optionsOf[O](name, opts)
			if err != nil {
				return nil, err
			}
			return open(devices, o)
		},
		model: func(opts any) (MemoryModel, error) {
			o, err := optionsOf[O](name, opts)
			if err != nil {
				return nil, err
			}
			return model(o), nil
		},
	}
}

// Unavailable is the factory of a backend this binary was built without
// (device/cuda without the cuda build tag): its name is known, so that a
// flag may take it, and opening it, or asking its model, fails with why.
func Unavailable(name string, why error) Factory {
	return Factory{
		name:  name,
		open:  func(int, any) (Backend, error) { return nil, why },
		model: func(any) (MemoryModel, error) { return nil, why },
	}
}

// optionsOf is opts as a backend's options of type O: nil is O's zero
// value (the backend's defaults); a value of another type is an error
// naming both types.
func optionsOf[O any](name string, opts any) (O, error) {
	var zero O
	if opts == nil {
		return zero, nil
	}
	o, ok := opts.(O)
	if !ok {
		return zero, fmt.Errorf("%s backend: options of type %T, want %T", name, opts, zero)
	}
	return o, nil
}

// Name is the backends' name (what their Backend.Name returns).
func (f Factory) Name() string { return f.name }

// Registry is the backends a program can open, by name. It starts empty
// (NewRegistry, for tests); package device/builtin holds the shipped
// ones.
type Registry struct {
	byName map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]Factory{}}
}

// Register adds factories. A factory without a name or a constructor, or
// a name registered twice, is an error; nothing is added then.
func (r *Registry) Register(fs ...Factory) error {
	seen := map[string]bool{}
	for _, f := range fs {
		switch _, dup := r.byName[f.name]; {
		case f.name == "" || f.open == nil || f.model == nil:
			return fmt.Errorf("backend %q: factory without a name or a constructor (use NewFactory or Unavailable)", f.name)
		case dup || seen[f.name]:
			return fmt.Errorf("backend %q registered twice", f.name)
		}
		seen[f.name] = true
	}
	for _, f := range fs {
		r.byName[f.name] = f
	}
	return nil
}

// MustRegister is Register, panicking on error (for static lists).
func (r *Registry) MustRegister(fs ...Factory) *Registry {
	if err := r.Register(fs...); err != nil {
		panic(err)
	}
	return r
}

// Names returns the registered names, sorted, those this binary was
// built without (Unavailable) included.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.byName))
	for n := range r.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ErrUnknownBackend is wrapped by Open and Model for a name that is not
// registered.
var ErrUnknownBackend = errors.New("unknown backend")

func (r *Registry) lookup(name string) (Factory, error) {
	f, ok := r.byName[name]
	if !ok {
		return Factory{}, fmt.Errorf("backend %q: %w (have %s)", name, ErrUnknownBackend, strings.Join(r.Names(), ", "))
	}
	return f, nil
}

// Open opens the backend called name with its options opts (nil: its
// defaults; a value of another type than its own is an error) for a run
// that places work on devices devices (at least 1): a backend of
// emulated devices makes that many, one of real devices fails with an
// error wrapping ErrNoDevice when it has fewer.
func (r *Registry) Open(name string, devices int, opts any) (Backend, error) {
	f, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	devices = max(devices, 1)
	be, err := f.open(devices, opts)
	if err != nil {
		return nil, err
	}
	if have := len(be.Devices()); have < devices {
		be.Close()
		return nil, fmt.Errorf("%s backend: %d devices wanted, %d present: %w", name, devices, have, ErrNoDevice)
	}
	return be, nil
}

// Model is the memory model of the backend called name with options
// opts, without opening it: for an estimate made before the backend is
// open, or without it.
func (r *Registry) Model(name string, opts any) (MemoryModel, error) {
	f, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	return f.model(opts)
}
