package runtime

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/sim"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testRegistry holds the sim stages plus test-only types:
//
//	test.noop     returns at once (scheduler overhead)
//	test.barrier  blocks until config.n instances are inside at once
//	test.block    blocks until its context is cancelled
//	test.source   outputs "test.a"; test.sink reads "test.a"
func testRegistry(t testing.TB) *stages.Registry {
	reg := stages.NewRegistry()
	var mu sync.Mutex
	groups := map[string]*barrier{}
	if err := reg.Register(sim.Factories()...); err != nil {
		t.Fatal(err)
	}
	noop := func(typ string, in []stages.DataType, out stages.DataType) stages.Factory {
		return stages.Factory{Type: typ, Doc: "test", Inputs: in, Output: out,
			New: func(stages.Config) (stages.Stage, error) {
				return stageFunc(func(context.Context, *stages.Input) (any, error) { return out, nil }), nil
			}}
	}
	err := reg.Register(
		noop("test.noop", nil, sim.Token),
		noop("test.source", nil, "test.a"),
		noop("test.sink", []stages.DataType{"test.a"}, ""),
		noop("test.other", nil, "test.b"),
		stages.Factory{Type: "test.hold", Doc: "outputs a *held that counts releases", Output: "test.held",
			New: func(stages.Config) (stages.Stage, error) {
				return stageFunc(func(context.Context, *stages.Input) (any, error) { h := &held{}; heldOut <- h; return h, nil }), nil
			}},
		stages.Factory{Type: "test.where", Doc: "outputs the device it ran on", Output: "test.device",
			NewConfig: func() stages.Config { return &whereConfig{} },
			New: func(stages.Config) (stages.Stage, error) {
				return stageFunc(func(_ context.Context, in *stages.Input) (any, error) { return in.Device, nil }), nil
			}},
		stages.Factory{Type: "test.block", Doc: "blocks until cancelled", Output: sim.Token,
			New: func(stages.Config) (stages.Stage, error) {
				return stageFunc(func(ctx context.Context, _ *stages.Input) (any, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				}), nil
			}},
		stages.Factory{Type: "test.barrier", Doc: "waits until n instances of its group are inside", Output: sim.Token,
			NewConfig: func() stages.Config { return &barrierConfig{N: 2, Timeout: 20 * time.Second, Group: "default"} },
			New: func(c stages.Config) (stages.Stage, error) {
				cfg := c.(*barrierConfig)
				mu.Lock()
				defer mu.Unlock()
				b := groups[cfg.Group]
				if b == nil {
					b = &barrier{n: cfg.N, full: make(chan struct{})}
					groups[cfg.Group] = b
				}
				return &barrierStage{b: b, cfg: *cfg}, nil
			}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// heldOut receives every *held a test.hold stage outputs.
var heldOut = make(chan *held, 64)

type held struct{ released atomic.Int32 }

func (h *held) Release() { h.released.Add(1) }

// whereConfig asks for the device by setting, like groth16.b_g2_msm's on.
type whereConfig struct {
	Device bool `yaml:"device"`
}

func (c *whereConfig) Validate() error   { return nil }
func (c *whereConfig) NeedsDevice() bool { return c.Device }

type stageFunc func(context.Context, *stages.Input) (any, error)

func (f stageFunc) Run(ctx context.Context, in *stages.Input) (any, error) { return f(ctx, in) }

type barrierConfig struct {
	N          int           `yaml:"n"`
	Group      string        `yaml:"group"`
	Partitions []int         `yaml:"partitions"` // empty: all take part
	Timeout    time.Duration `yaml:"timeout"`
}

func (c *barrierConfig) Validate() error { return nil }

// barrier proves concurrency without timing: instances of its group wait
// until n of them have arrived, and fail if that does not happen in time.
// Stages of one pipeline that name the same group share a barrier.
type barrier struct {
	mu     sync.Mutex
	inside int
	n      int
	full   chan struct{}
}

type barrierStage struct {
	b   *barrier
	cfg barrierConfig
}

func (s *barrierStage) Run(ctx context.Context, in *stages.Input) (any, error) {
	if len(s.cfg.Partitions) > 0 && !slices.Contains(s.cfg.Partitions, in.Partition) {
		return sim.Token, nil
	}
	b := s.b
	b.mu.Lock()
	b.inside++
	if b.inside == b.n {
		close(b.full)
	}
	b.mu.Unlock()
	t := time.NewTimer(s.cfg.Timeout)
	defer t.Stop()
	select {
	case <-b.full:
		return sim.Token, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("barrier %q: only %d of %d instances arrived within %s", s.cfg.Group, b.inside, b.n, s.cfg.Timeout)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func mustParse(t testing.TB, src string) *Pipeline {
	t.Helper()
	p, err := Parse("test.yaml", []byte(strings.TrimLeft(src, "\n")), testRegistry(t), nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

func mustEngine(t testing.TB, p *Pipeline, opts Options) *Engine {
	t.Helper()
	e, err := NewEngine(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
