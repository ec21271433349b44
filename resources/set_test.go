package resources

import (
	"slices"
	"strings"
	"testing"
)

func TestNewSetExpandsTemplatesInPlaceInCanonicalOrder(t *testing.T) {
	s := newSet(t, 3,
		Decl{Name: "cpu_bandwidth", Capacity: 4},
		Decl{Name: "gpu.{gpu}.mem", Capacity: 1},
		Decl{Name: "pcie", Capacity: 2},
		Decl{Name: "gpu.{gpu}.compute", Capacity: 1},
	)
	var names []string
	var caps []int64
	for id := range ID(s.Len()) {
		names = append(names, s.Name(id))
		caps = append(caps, s.Capacity(id))
	}
	wantNames := []string{"cpu_bandwidth", "gpu.0.mem", "gpu.1.mem", "gpu.2.mem", "pcie", "gpu.0.compute", "gpu.1.compute", "gpu.2.compute"}
	wantCaps := []int64{4, 1, 1, 1, 2, 1, 1, 1}
	if !slices.Equal(names, wantNames) || !slices.Equal(caps, wantCaps) {
		t.Fatalf("resources = %v %v, want %v %v", names, caps, wantNames, wantCaps)
	}
	if s.Devices() != 3 {
		t.Fatalf("Devices() = %d, want 3", s.Devices())
	}
}

func TestNewSetReportsEveryBadDecl(t *testing.T) {
	tests := []struct {
		name    string
		devices int
		decls   []Decl
		errs    []string // each must appear in the error
	}{
		{"bad name", 1, []Decl{{"GPU", 1}}, []string{`resource name "GPU"`}},
		{"duplicate", 1, []Decl{{"a", 1}, {"a", 2}}, []string{`resource "a" declared twice`}},
		{"capacity zero", 1, []Decl{{"a", 0}}, []string{`resource "a": capacity 0, want at least 1`}},
		{"capacity negative", 1, []Decl{{"a", -3}}, []string{`resource "a": capacity -3`}},
		{"template without devices", 0, []Decl{{"a", 1}, {"gpu.{gpu}.mem", 1}}, []string{`resource template "gpu.{gpu}.mem" needs at least one device, have 0`}},
		{"template with negative devices", -1, []Decl{{"gpu.{gpu}.mem", 1}}, []string{`resource template "gpu.{gpu}.mem" needs at least one device, have -1`}},
		{"expansion collides with plain name", 2, []Decl{{"gpu.1.mem", 1}, {"gpu.{gpu}.mem", 1}}, []string{`resource "gpu.{gpu}.mem": "gpu.1.mem" already declared as "gpu.1.mem"`}},
		{"plain name collides with expansion", 2, []Decl{{"gpu.{gpu}.mem", 1}, {"gpu.0.mem", 1}}, []string{`resource "gpu.0.mem": "gpu.0.mem" already declared as "gpu.{gpu}.mem"`}},
		{"all problems at once", 0, []Decl{{"a..b", 1}, {"c", 0}, {"{gpu}", 1}}, []string{`empty segment 2`, `resource "c": capacity 0`, `resource template "{gpu}"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSet(tt.decls, tt.devices)
			if err == nil {
				t.Fatalf("NewSet = %d resources, want error", s.Len())
			}
			for _, want := range tt.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestNewSetAcceptsNoTemplatesWithoutDevices(t *testing.T) {
	s := newSet(t, 0, Decl{Name: "a", Capacity: 1})
	if s.Len() != 1 {
		t.Fatalf("Len() = %d, want 1", s.Len())
	}
}

func TestLookupResolvesDeclaredNamesAndNamesUnknownOnes(t *testing.T) {
	s := newSet(t, 2,
		Decl{Name: "cpu_bandwidth", Capacity: 4},
		Decl{Name: "gpu.{gpu}.mem", Capacity: 1},
		Decl{Name: "gpu.{gpu}.compute", Capacity: 1},
	)
	tests := []struct {
		name   string
		device int
		want   string // concrete name, or error text
		err    bool
	}{
		{"cpu_bandwidth", -1, "cpu_bandwidth", false},
		{"cpu_bandwidth", 7, "cpu_bandwidth", false},
		{"gpu.{gpu}.mem", 0, "gpu.0.mem", false},
		{"gpu.{gpu}.mem", 1, "gpu.1.mem", false},
		{"gpu.{gpu}.compute", 1, "gpu.1.compute", false},
		{"gpu.1.compute", -1, "gpu.1.compute", false},
		{"gpu.{gpu}.mem", 2, `resource "gpu.{gpu}.mem": device 2 out of range (2 devices)`, true},
		{"gpu.{gpu}.mem", -1, `resource "gpu.{gpu}.mem": device -1 out of range (2 devices)`, true},
		{"gpu.{gpu}.mme", 0, `unknown resource "gpu.{gpu}.mme" (did you mean "gpu.{gpu}.mem"?)`, true},
		{"network", 0, `unknown resource "network"`, true},
		{"gpu.2.mem", 0, `unknown resource "gpu.2.mem" (did you mean "gpu.{gpu}.mem"?)`, true},
	}
	for _, tt := range tests {
		id, err := s.Lookup(tt.name, tt.device)
		switch {
		case tt.err && (err == nil || err.Error() != tt.want):
			t.Errorf("Lookup(%q, %d) = %d, %v; want error %q", tt.name, tt.device, id, err, tt.want)
		case !tt.err && (err != nil || s.Name(id) != tt.want):
			t.Errorf("Lookup(%q, %d) = %d, %v; want %q", tt.name, tt.device, id, err, tt.want)
		}
	}
}
