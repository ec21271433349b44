package resources

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prooflane/prooflane/internal/suggest"
)

// ID is a concrete resource's index in canonical order: declaration order,
// and for a template, device 0..N-1 in place of the template.
type ID int

// Set is the concrete resources of one engine, with one lock manager.
// Its methods are safe for concurrent use.
type Set struct {
	decls   map[string]declared // by name as declared
	byName  map[string]ID       // by concrete name
	names   []string            // declared names, for suggestions
	devices int

	mu    sync.Mutex
	now   func() time.Time
	epoch time.Time // of the stats: NewSet or ResetStats
	seq   uint64    // arrival counter of Acquire calls
	res   []resource
}

// declared is one Decl after expansion: its resources are first..first+n-1.
type declared struct {
	first     ID
	n         int
	templated bool
}

// NewSet expands decls for devices devices and returns their Set. It reports
// every bad name, duplicate (declared or after expansion), capacity below 1,
// and template that cannot expand (devices <= 0), joined into one error.
func NewSet(decls []Decl, devices int) (*Set, error) {
	s := &Set{
		decls:   make(map[string]declared, len(decls)),
		byName:  make(map[string]ID, len(decls)),
		devices: devices,
		now:     time.Now,
	}
	var errs []error
	for _, d := range decls {
		templated, err := ParseName(d.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d.Capacity < 1 {
			errs = append(errs, fmt.Errorf("resource %q: capacity %d, want at least 1", d.Name, d.Capacity))
			continue
		}
		if _, dup := s.decls[d.Name]; dup {
			errs = append(errs, fmt.Errorf("resource %q declared twice", d.Name))
			continue
		}
		concrete := []string{d.Name}
		if templated {
			if devices <= 0 {
				errs = append(errs, fmt.Errorf("resource template %q needs at least one device, have %d", d.Name, devices))
				continue
			}
			concrete = make([]string, devices)
			for dev := range concrete {
				concrete[dev] = expand(d.Name, dev)
			}
		}
		first := ID(len(s.res))
		ok := true
		for _, name := range concrete {
			if id, dup := s.byName[name]; dup {
				errs = append(errs, fmt.Errorf("resource %q: %q already declared as %q", d.Name, name, s.declOf(id)))
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for _, name := range concrete {
			s.byName[name] = ID(len(s.res))
			s.res = append(s.res, resource{name: name, capacity: d.Capacity})
		}
		s.decls[d.Name] = declared{first: first, n: len(concrete), templated: templated}
		s.names = append(s.names, d.Name)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.epoch = s.now()
	return s, nil
}

// declOf returns the declared name that id was expanded from.
func (s *Set) declOf(id ID) string {
	for name, d := range s.decls {
		if id >= d.first && int(id) < int(d.first)+d.n {
			return name
		}
	}
	return s.res[id].name
}

// Lookup returns the ID of a resource by its name as declared (plain or
// template) and, for a template, the device. The device is ignored for plain
// names. A concrete name of an expanded template ("gpu.0.mem") is accepted
// too. It fails when the name is unknown or the device is out of range.
func (s *Set) Lookup(name string, device int) (ID, error) {
	d, ok := s.decls[name]
	if !ok {
		if id, ok := s.byName[name]; ok {
			return id, nil
		}
		if hint := suggest.Closest(name, s.names); hint != "" {
			return 0, fmt.Errorf("unknown resource %q (did you mean %q?)", name, hint)
		}
		return 0, fmt.Errorf("unknown resource %q", name)
	}
	if !d.templated {
		return d.first, nil
	}
	if device < 0 || device >= d.n {
		return 0, fmt.Errorf("resource %q: device %d out of range (%d devices)", name, device, d.n)
	}
	return d.first + ID(device), nil
}

// Name returns the concrete name of id, such as "gpu.0.mem".
func (s *Set) Name(id ID) string { return s.res[id].name }

// Capacity returns the capacity of id.
func (s *Set) Capacity(id ID) int64 { return s.res[id].capacity }

// Len returns the number of concrete resources; IDs are 0..Len()-1.
func (s *Set) Len() int { return len(s.res) }

// Devices returns the device count the Set's templates were expanded for.
func (s *Set) Devices() int { return s.devices }

// SetClock replaces the clock used for wait and hold times (time.Now by
// default), for tests. It also restarts the stats, as ResetStats does.
func (s *Set) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
	s.resetStatsLocked()
}
