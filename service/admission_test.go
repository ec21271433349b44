package service

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/prooflane/prooflane/admission"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// hugeSize is the largest size a request may name (2^28): a Groth16 key
// of it needs hundreds of GiB.
const hugeSize = 1 << MaxSizeLog2

// refusedAtOnce calls f, which the server must refuse as ResourceExhausted
// with a message holding each of want, and says how long it took.
func refusedAtOnce(t *testing.T, what string, f func() error, want ...string) {
	t.Helper()
	began := time.Now()
	err := f()
	// A guard against a refusal that waited for a worker or a setup, not
	// a measure of speed (the refusal needs no more than an estimate).
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("%s: refused after %s", what, took)
	}
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("%s: %v, want ResourceExhausted", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %v, want it to say %q", what, err, w)
		}
	}
}

// Submit and Preload that no worker could ever admit are refused by the
// server before anything is queued or sent to a worker, naming the
// estimate and the largest budget: the workers' reported budgets, or with
// no worker running this host's memory.
func TestSubmitAndPreloadNoWorkerCouldAdmitAreRefusedAtOnce(t *testing.T) {
	t.Setenv(admission.HostEnv, "8GiB")
	h := newHarness(t, "")
	ctx := context.Background()
	submit := func() error {
		_, err := h.client.Submit(ctx, connect.NewRequest(&pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: hugeSize, Partitions: 2}}))
		return err
	}
	preload := func() error {
		_, err := h.client.Preload(ctx, connect.NewRequest(&pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: hugeSize}))
		return err
	}
	refusedAtOnce(t, "submit, no worker", submit, "spec: groth16 chain/268435456 with 2 partitions needs about ", " GiB of host memory, more than the 8.0 GiB of the service host's PROOFLANE_HOST_MEMORY=8GiB (no worker is running)")

	h.start(WorkerConfig{Name: "w1", Budget: 16 << 30})
	waitFor(t, "w1's report", func() bool {
		reps, err := h.srv.reports(ctx)
		return err == nil && len(reps) == 1
	})
	refusedAtOnce(t, "submit", submit, "needs about ", `more than the 16.0 GiB of worker "w1"'s budget`, "no worker could ever admit it")
	refusedAtOnce(t, "preload", preload, "preload: groth16 chain/268435456 needs about ", `more than the 16.0 GiB of worker "w1"'s budget`)
	list, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Msg.Jobs) != 0 {
		t.Errorf("a refused submit left jobs: %v", list.Msg.Jobs)
	}
	if ks := list.Msg.Workers[0].Keys; len(ks) != 0 {
		t.Errorf("a refused preload loaded keys: %v", ks)
	}
	// What fits a worker goes through.
	h.awaitVerified(h.submit(testSpec(3), 0), testSpec(3))
}

// A worker's budget is the machine's memory unless it is given one
// (PROOFLANE_HOST_MEMORY standing in for the machine's); NoBudget is
// none. The budget in force is what its report says.
func TestWorkerBudgetDefaultsToTheMachinesMemory(t *testing.T) {
	t.Setenv(admission.HostEnv, "")
	machine, _, err := admission.Host()
	if err != nil {
		t.Skipf("no meminfo here: %v", err)
	}
	for _, c := range []struct {
		env    string
		budget uint64
		want   uint64
	}{{"", 0, machine.Bytes}, {"8GiB", 0, 8 << 30}, {"8GiB", 1 << 30, 1 << 30}, {"", NoBudget, 0}} {
		t.Setenv(admission.HostEnv, c.env)
		h := newHarness(t, "")
		h.start(WorkerConfig{Name: "w", Budget: c.budget})
		var got *pb.WorkerInfo
		waitFor(t, "the worker's report", func() bool {
			list, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{}))
			if err == nil && len(list.Msg.Workers) == 1 {
				got = list.Msg.Workers[0]
			}
			return got != nil
		})
		if got.BudgetBytes != c.want {
			t.Errorf("PROOFLANE_HOST_MEMORY=%q, budget %d: reported %d, want %d", c.env, c.budget, got.BudgetBytes, c.want)
		}
	}
}

// A worker refuses a Preload whose key does not fit its whole budget,
// naming the estimate and the budget, before it loads or makes anything.
func TestWorkerRefusesAPreloadAboveItsBudget(t *testing.T) {
	h := newHarness(t, "")
	r := h.engineRunner()
	w := h.start(WorkerConfig{Name: "small", Budget: 64 << 20, Runner: r})
	spec, err := checkKey(&pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	err = w.preload(context.Background(), control{Op: "preload", Spec: spec})
	if err == nil || !strings.Contains(err.Error(), "preload of groth16 key chain/1048576 needs about ") ||
		!strings.Contains(err.Error(), `of host memory, more than the 64 MiB of worker "small"'s budget`) {
		t.Errorf("preload above the budget: %v", err)
	}
	if ks := r.Keys(); len(ks) != 0 {
		t.Errorf("keys after a refused preload: %v", ks)
	}
}

// blockingRunner's Preload waits for its context, and says when it
// started and how it ended.
type blockingRunner struct {
	Runner
	started chan struct{}
	ended   chan error
}

func (b *blockingRunner) Preload(ctx context.Context, spec Spec) error {
	close(b.started)
	<-ctx.Done()
	b.ended <- ctx.Err()
	return ctx.Err()
}

// A Preload whose caller goes away is stopped on the workers: the server
// tells them, and the worker cancels what it runs for it.
func TestPreloadWhoseCallerWentAwayIsStopped(t *testing.T) {
	h := newHarness(t, "")
	br := &blockingRunner{Runner: h.engineRunner(), started: make(chan struct{}), ended: make(chan error, 1)}
	h.start(WorkerConfig{Name: "w1", Runner: br})
	waitFor(t, "w1's report", func() bool {
		reps, err := h.srv.st.workerReports(context.Background())
		return err == nil && len(reps) == 1
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.client.Preload(ctx, connect.NewRequest(&pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: testSize}))
		done <- err
	}()
	select {
	case <-br.started:
	case <-time.After(2 * time.Minute):
		t.Fatal("the worker never started the preload")
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled preload call returned no error")
	}
	select {
	case err := <-br.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the worker's preload ended with %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the worker's preload still runs after its caller went away")
	}
}

// setupRunning reports whether a goroutine runs a Groth16 key setup:
// prooflane's (keys.NewKeys) or gnark's (keys.setupGnark's goroutine).
func setupRunning() bool {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	s := b.String()
	return strings.Contains(s, "keys.NewKeys") || strings.Contains(s, "keys.setupGnark") || strings.Contains(s, "groth16/bls12-381.Setup")
}

// A key setup cancelled mid-way (a cancelled job's, or a Preload's whose
// caller went away) returns context.Canceled, writes no key, leaves no
// setup running, and its memory is garbage.
func TestKeySetupCancelledMidwayStopsAndFreesItsMemory(t *testing.T) {
	h := newHarness(t, "")
	var mu sync.Mutex
	var log bytes.Buffer
	r := h.engineRunner()
	r.Log = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return log.Write(p) })
	spec, err := checkKey(&pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	before := heapAfterGC()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Preload(ctx, spec) }()
	waitFor(t, "the setup to start", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(log.String(), "running setup")
	})
	cancel()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("a cancelled setup did not return")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled setup: %v, want context.Canceled", err)
	}
	if setupRunning() {
		t.Error("a key setup still runs after its preload was cancelled")
	}
	if files, _ := filepath.Glob(filepath.Join(h.keys, "*.pk")); len(files) != 0 || len(r.Keys()) != 0 {
		t.Errorf("a cancelled setup left keys: %v, %v", files, r.Keys())
	}
	// The circuit's compilation, if the cancel came during it, ends on
	// its own: then everything is garbage.
	waitFor(t, "the setup's memory to be freed", func() bool { return heapAfterGC() < before+32<<20 })
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
