package stagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/prooflane/prooflane/stages"
)

// recordTB keeps the errors a check reports instead of failing the test.
type recordTB struct {
	testing.TB
	errs []string
}

func (r *recordTB) Helper() {}
func (r *recordTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// lifeStage starts by reading the host's backend as its behaviour says.
type lifeStage struct{ behaviour string }

func (lifeStage) Run(context.Context, *stages.Input) (any, error) { return nil, nil }

func (s lifeStage) Start(_ context.Context, h stages.Host) error {
	switch s.behaviour {
	case "panics without a backend":
		_ = h.Backend().Name() // a nil interface: panics
	case "refuses without a backend":
		if h.Backend() == nil {
			return errors.New("no backend")
		}
	case "never starts":
		return errors.New("broken")
	}
	return nil
}

func (s lifeStage) Shutdown(context.Context) error {
	if s.behaviour == "fails to shut down" {
		return errors.New("still busy")
	}
	return nil
}

// The lifecycle check starts and shuts down every stage: a refusal
// without a backend passes, a panic, a failed start on a backend or a
// failed shutdown does not.
func TestCheckFactoriesStartsAndShutsDownEveryStage(t *testing.T) {
	behaviours := map[string]string{
		"t.ok":        "",
		"t.refuses":   "refuses without a backend",
		"t.panics":    "panics without a backend",
		"t.broken":    "never starts",
		"t.lingering": "fails to shut down",
	}
	reg := stages.NewRegistry()
	for typ, b := range behaviours {
		reg.MustRegister(stages.Factory{Type: typ, Doc: "test",
			New: func(stages.Config) (stages.Stage, error) { return lifeStage{b}, nil }})
	}
	rec := &recordTB{TB: t}
	CheckFactories(rec, reg)
	want := []string{
		"t.broken: Start on a host lending a cpu backend: broken",
		"t.lingering: Shutdown: still busy",
		"t.panics: Start on a host lending no backend: panicked: runtime error: invalid memory address or nil pointer dereference",
	}
	if !slices.Equal(rec.errs, want) {
		t.Errorf("check reported\n%q\nwant\n%q", rec.errs, want)
	}
}
