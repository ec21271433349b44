package runtime

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/sim"
)

// countingRegistry has one type, test.counted, whose New counts its calls
// and fails with errBadStage when the config says fail: true.
func countingRegistry(t *testing.T, calls *atomic.Int32) *stages.Registry {
	t.Helper()
	reg := stages.NewRegistry()
	err := reg.Register(stages.Factory{Type: "test.counted", Doc: "counts constructions", Output: sim.Token,
		NewConfig: func() stages.Config { return &countedConfig{} },
		New: func(c stages.Config) (stages.Stage, error) {
			calls.Add(1)
			if c.(*countedConfig).Fail {
				return nil, errBadStage
			}
			return stageFunc(func(context.Context, *stages.Input) (any, error) { return sim.Token, nil }), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

var errBadStage = errors.New("the constructor refuses this config")

type countedConfig struct {
	Fail bool `yaml:"fail"`
}

func (c *countedConfig) Validate() error { return nil }

// Parse returns a description only; each engine constructs its own stages.
func TestParseConstructsNoStageAndEachEngineItsOwn(t *testing.T) {
	var calls atomic.Int32
	src := "pipeline: p\nstages:\n  a: {type: test.counted}\n  b: {type: test.counted, needs: [a]}\n"
	p, err := Parse("c.yaml", []byte(src), countingRegistry(t, &calls), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("Parse called New %d times, want 0", n)
	}
	if p.Stages[0].Config == nil {
		t.Errorf("stage %q carries no decoded config", p.Stages[0].Name)
	}
	for i := 1; i <= 2; i++ {
		e := mustEngine(t, p, Options{})
		if n := calls.Load(); n != int32(2*i) {
			t.Fatalf("after %d engines New was called %d times, want %d", i, n, 2*i)
		}
		if _, err := e.Run(context.Background(), Job{}); err != nil {
			t.Fatal(err)
		}
	}
}

// A constructor's error comes from NewEngine, naming the stage and where
// the file declares it.
func TestConstructorErrorNamesTheStageAndItsPosition(t *testing.T) {
	var calls atomic.Int32
	src := "pipeline: p\nstages:\n  a: {type: test.counted}\n  b:\n    type: test.counted\n    config: {fail: true}\n"
	p, err := Parse("c.yaml", []byte(src), countingRegistry(t, &calls), nil)
	if err != nil {
		t.Fatalf("Parse: %v (a constructor's error is the engine's to report)", err)
	}
	_, err = NewEngine(p, Options{})
	want := `c.yaml:4:3: stage "b": the constructor refuses this config`
	if err == nil || err.Error() != want || !errors.Is(err, errBadStage) {
		t.Fatalf("NewEngine: %v, want %q wrapping the constructor's error", err, want)
	}
	if !strings.HasPrefix(err.Error(), p.File+":") {
		t.Errorf("error %q does not start with the file", err)
	}
}
