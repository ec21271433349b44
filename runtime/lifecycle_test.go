package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/sim"
)

// lifeLog records what the engine did to test.life stages, in order.
type lifeLog struct {
	mu     sync.Mutex
	events []string
	hosts  map[string]stages.Host
	gate   chan struct{} // when set, Run of a stage named "gated" waits on it
	inside chan struct{} // and says so here first
}

func (l *lifeLog) add(format string, args ...any) {
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *lifeLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func (l *lifeLog) count(ev string) int {
	n := 0
	for _, e := range l.list() {
		if e == ev {
			n++
		}
	}
	return n
}

type lifeConfig struct {
	Name         string `yaml:"name"`
	FailStart    bool   `yaml:"fail_start"`
	FailShutdown bool   `yaml:"fail_shutdown"`
}

func (c *lifeConfig) Validate() error { return nil }

// lifeStage implements Starter and Stopper and records every call; Run
// fails unless Start came first.
type lifeStage struct {
	cfg     lifeConfig
	log     *lifeLog
	mu      sync.Mutex
	started bool
}

func (s *lifeStage) Start(_ context.Context, h stages.Host) error {
	s.log.add("start %s", s.cfg.Name)
	s.log.mu.Lock()
	s.log.hosts[s.cfg.Name] = h
	s.log.mu.Unlock()
	if s.cfg.FailStart {
		return errors.New("no such device")
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	return nil
}

func (s *lifeStage) Shutdown(context.Context) error {
	s.log.add("shutdown %s", s.cfg.Name)
	if s.cfg.FailShutdown {
		return errors.New("buffers still in use")
	}
	return nil
}

func (s *lifeStage) Run(ctx context.Context, in *stages.Input) (any, error) {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if !started {
		return nil, errors.New("run before start")
	}
	if s.cfg.Name == "gated" && s.log.gate != nil {
		s.log.inside <- struct{}{}
		<-s.log.gate
	}
	s.log.add("run %s", s.cfg.Name)
	return sim.Token, nil
}

func lifeRegistry(t *testing.T, log *lifeLog) *stages.Registry {
	t.Helper()
	log.hosts = map[string]stages.Host{}
	reg := stages.NewRegistry()
	err := reg.Register(stages.Factory{Type: "test.life", Doc: "records its lifecycle", Output: sim.Token,
		NewConfig: func() stages.Config { return &lifeConfig{} },
		New: func(c stages.Config) (stages.Stage, error) {
			return &lifeStage{cfg: *c.(*lifeConfig), log: log}, nil
		}},
		stages.Factory{Type: "test.plain", Doc: "has no lifecycle", Output: sim.Token,
			New: func(stages.Config) (stages.Stage, error) {
				return stageFunc(func(context.Context, *stages.Input) (any, error) { return sim.Token, nil }), nil
			}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func parseWith(t *testing.T, reg *stages.Registry, src string) *Pipeline {
	t.Helper()
	p, err := Parse("life.yaml", []byte(src), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const lifePipeline = `pipeline: life
devices: 2
resources:
  "gpu.{gpu}.compute": {}
stages:
  a: {type: test.life, config: {name: a}}
  p: {type: test.plain, needs: [a]}
  b: {type: test.life, needs: [p], locks: ["gpu.{gpu}.compute"], config: {name: b}}
`

// Start runs once per stage, before any Run, however many jobs start at
// once; Close shuts the stages down once, last started first, and the
// engine runs no job after it.
func TestStageStartsOnceBeforeItsFirstRunAndShutsDownOnClose(t *testing.T) {
	log := &lifeLog{}
	e := mustEngine(t, parseWith(t, lifeRegistry(t, log), lifePipeline), Options{})
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for j := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[j] = e.Run(context.Background(), Job{Partitions: 3})
		}()
	}
	wg.Wait()
	for j, err := range errs {
		if err != nil {
			t.Fatalf("job %d: %v", j, err)
		}
	}
	if got := log.list()[:2]; !slices.Equal(got, []string{"start a", "start b"}) {
		t.Errorf("first events %q, want the two starts in pipeline order", got)
	}
	for _, name := range []string{"a", "b"} {
		if n := log.count("start " + name); n != 1 {
			t.Errorf("stage %s started %d times, want 1", name, n)
		}
		if n := log.count("run " + name); n != 12 {
			t.Errorf("stage %s ran %d times, want 12", name, n)
		}
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	ev := log.list()
	if got := ev[len(ev)-2:]; !slices.Equal(got, []string{"shutdown b", "shutdown a"}) {
		t.Errorf("last events %q, want the shutdowns in reverse start order", got)
	}
	if n := log.count("shutdown a") + log.count("shutdown b"); n != 2 {
		t.Errorf("%d shutdowns, want 2", n)
	}
	if _, err := e.Run(context.Background(), Job{}); !errors.Is(err, ErrEngineClosed) {
		t.Errorf("Run after Close: %v, want ErrEngineClosed", err)
	}
}

// Close waits for a job running when it is called before it shuts the
// stages down.
func TestCloseWaitsForRunningJobsBeforeShutdown(t *testing.T) {
	log := &lifeLog{gate: make(chan struct{}), inside: make(chan struct{}, 1)}
	src := "pipeline: gated\nstages:\n  g: {type: test.life, config: {name: gated}}\n"
	e := mustEngine(t, parseWith(t, lifeRegistry(t, log), src), Options{})
	jobErr := make(chan error, 1)
	go func() {
		_, err := e.Run(context.Background(), Job{ID: "slow"})
		jobErr <- err
	}()
	<-log.inside // the job is inside its stage
	closed := make(chan error, 1)
	go func() { closed <- e.Close(context.Background()) }()
	// Wait (without a clock) until Close has begun: Start (and so Run) is
	// refused from then on.
	for {
		if err := e.Start(context.Background()); errors.Is(err, ErrEngineClosed) {
			break
		}
		goruntime.Gosched()
	}
	if n := log.count("shutdown gated"); n != 0 {
		t.Fatalf("stage shut down while its job was running")
	}
	close(log.gate)
	if err := <-jobErr; err != nil {
		t.Fatalf("the running job: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if got := log.list(); !slices.Equal(got, []string{"start gated", "run gated", "shutdown gated"}) {
		t.Errorf("events %q, want start, run, shutdown", got)
	}
}

// A stage that fails to start fails the engine's start naming it; the
// stages started before it are shut down, and no job runs.
func TestFailedStartNamesTheStageAndShutsDownTheOthers(t *testing.T) {
	log := &lifeLog{}
	src := strings.Replace(lifePipeline, "config: {name: b}", "config: {name: b, fail_start: true}", 1)
	e := mustEngine(t, parseWith(t, lifeRegistry(t, log), src), Options{})
	err := e.Start(context.Background())
	want := `pipeline "life": stage "b" (test.life): start: no such device`
	if err == nil || err.Error() != want {
		t.Fatalf("Start: %v, want %q", err, want)
	}
	if _, err := e.Run(context.Background(), Job{}); err == nil || err.Error() != want {
		t.Errorf("Run after a failed start: %v, want %q", err, want)
	}
	if got := log.list(); !slices.Equal(got, []string{"start a", "start b", "shutdown a"}) {
		t.Errorf("events %q, want a started, b failing, a shut down", got)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Errorf("Close after a failed start: %v", err)
	}
	if n := log.count("shutdown a"); n != 1 {
		t.Errorf("stage a shut down %d times, want 1", n)
	}
	assertNothingHeld(t, e)
}

// Every Shutdown runs even when one fails; Close returns the failures,
// each naming its stage.
func TestCloseReportsEveryShutdownError(t *testing.T) {
	log := &lifeLog{}
	src := strings.Replace(lifePipeline, "config: {name: a}", "config: {name: a, fail_shutdown: true}", 1)
	e := mustEngine(t, parseWith(t, lifeRegistry(t, log), src), Options{})
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := e.Close(context.Background())
	if err == nil || !strings.Contains(err.Error(), `stage "a" (test.life): shutdown: buffers still in use`) {
		t.Fatalf("Close: %v, want a's shutdown error", err)
	}
	if got := log.list(); !slices.Equal(got, []string{"start a", "start b", "shutdown b", "shutdown a"}) {
		t.Errorf("events %q", got)
	}
}

// The host lends the stages the engine's backend and device count.
func TestHostLendsTheBackendAndTheDeviceCount(t *testing.T) {
	be, err := cpu.New(3)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	log := &lifeLog{}
	e := mustEngine(t, parseWith(t, lifeRegistry(t, log), lifePipeline), Options{Backend: be})
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		h := log.hosts[name]
		if h == nil || h.Backend() != be || h.Devices() != 2 {
			t.Errorf("stage %s: host %v, want the engine's backend and 2 devices (the pipeline's)", name, h)
		}
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The engine does not close the caller's backend.
	if _, err := cdev.Of(be, 0); err != nil {
		t.Errorf("backend after the engine's Close: %v", err)
	}
}

// A backend with fewer devices than the engine places partitions on is an
// engine error naming both counts.
func TestBackendWithTooFewDevicesIsAnEngineError(t *testing.T) {
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	p := parseWith(t, lifeRegistry(t, &lifeLog{}), lifePipeline)
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Backend: be}, `pipeline "life": 2 devices wanted, but the "cpu" backend has 1`},
		{Options{Backend: be, Devices: 4}, `pipeline "life": 4 devices wanted, but the "cpu" backend has 1`},
	} {
		_, err := NewEngine(p, c.opts)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, device.ErrNoDevice) {
			t.Errorf("NewEngine(devices %d): %v, want %q wrapping device.ErrNoDevice", c.opts.Devices, err, c.want)
		}
	}
	if _, err := NewEngine(p, Options{Backend: be, Devices: 1}); err != nil {
		t.Errorf("NewEngine on 1 device of a 1-device backend: %v", err)
	}
}
