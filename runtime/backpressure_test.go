package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// inFlightCounter follows, from the engine's events, how many partitions
// are between their first stage's start and their last stage's end.
type inFlightCounter struct {
	mu      sync.Mutex
	stages  int
	started map[int]bool
	ended   map[int]int // stages done, by partition
	now     int
	most    int
	first   []int // partitions in the order their first stage started
}

func newInFlightCounter(stages int) *inFlightCounter {
	return &inFlightCounter{stages: stages, started: map[int]bool{}, ended: map[int]int{}}
}

func (c *inFlightCounter) event(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Kind {
	case StageStarted:
		if !c.started[ev.Partition] {
			c.started[ev.Partition] = true
			c.first = append(c.first, ev.Partition)
			c.now++
			c.most = max(c.most, c.now)
		}
	case StageDone:
		if c.ended[ev.Partition]++; c.ended[ev.Partition] == c.stages {
			c.now--
		}
	}
}

// No more than max_in_flight partitions of a job are ever between their
// first stage's start and their last stage's end, however many partitions
// the job has and however fast the first stage is: partitions beyond the
// bound wait before their first stage, so outputs do not pile up in front
// of a slow stage (190 of 200 partitions used to hold prep output waiting
// for the device). The barrier makes 4 meet in prep, so the bound is
// reached, not only respected.
func TestPartitionsInFlightNeverExceedMaxInFlight(t *testing.T) {
	p := mustParse(t, `
pipeline: pressure
params: {partitions: 24}
max_in_flight: 4
stages:
  prep: {type: test.barrier, workers: 24, config: {n: 4, group: pressure}}
  upload: {type: sim.sleep, needs: [prep], workers: 24, config: {duration: 1ms}}
  compute: {type: sim.sleep, needs: [upload], config: {duration: 2ms}}
`)
	c := newInFlightCounter(3)
	e := mustEngine(t, p, Options{OnEvent: c.event})
	if e.MaxInFlight() != 4 {
		t.Fatalf("MaxInFlight = %d, want 4 (the pipeline's)", e.MaxInFlight())
	}
	res, err := e.Run(context.Background(), Job{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Partitions) != 24 || c.now != 0 || len(c.first) != 24 {
		t.Fatalf("%d results, %d partitions still counted in flight, %d started; want 24, 0, 24", len(res.Partitions), c.now, len(c.first))
	}
	if c.most != 4 {
		t.Errorf("at most %d partitions in flight at once, want exactly max_in_flight 4", c.most)
	}
	assertNothingHeld(t, e)
}

// Without max_in_flight the bound is the worker slots of every stage (a
// device-bound stage's on each device): 2 + 1 + 2×2 = 7 here.
func TestDefaultMaxInFlightFollowsWorkerCounts(t *testing.T) {
	p := mustParse(t, `
pipeline: pressure_default
params: {partitions: 40}
devices: 2
stages:
  prep: {type: sim.sleep, workers: 2, config: {duration: 0s}}
  host: {type: sim.sleep, needs: [prep], config: {duration: 0s}}
  compute: {type: sim.device, needs: [prep], workers: 2, config: {duration: 1ms}}
`)
	c := newInFlightCounter(3)
	e := mustEngine(t, p, Options{OnEvent: c.event})
	if e.MaxInFlight() != 7 {
		t.Fatalf("default MaxInFlight = %d, want 7", e.MaxInFlight())
	}
	if _, err := e.Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	if c.most > 7 {
		t.Errorf("%d partitions in flight at once, above the default bound 7", c.most)
	}
	// A huge worker count does not lift the bound above the partition limit.
	wide := mustParse(t, "pipeline: wide\nstages:\n  a: {type: sim.sleep, workers: 9223372036854775807}\n  b: {type: sim.sleep, workers: 9223372036854775807}\n")
	if got := mustEngine(t, wide, Options{}).MaxInFlight(); got != MaxPartitions {
		t.Errorf("MaxInFlight with workers of MaxInt64 = %d, want %d", got, MaxPartitions)
	}
}

// Partitions are admitted in index order: with one in flight they run one
// after the other, 0 first.
func TestPartitionsAreAdmittedInIndexOrder(t *testing.T) {
	p := mustParse(t, `
pipeline: fifo
params: {partitions: 6}
max_in_flight: 1
stages:
  a: {type: sim.sleep, workers: 6, config: {duration: 0s}}
  b: {type: sim.sleep, needs: [a], workers: 6, config: {duration: 0s}}
`)
	c := newInFlightCounter(2)
	if _, err := mustEngine(t, p, Options{OnEvent: c.event}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(c.first, want) || c.most != 1 {
		t.Errorf("partitions started in order %v with %d at once, want %v one at a time", c.first, c.most, want)
	}
}

// Cancelling a job while partitions wait to be admitted returns at once:
// the waiting ones never start, and nothing is held (goleak checks the
// goroutines in TestMain).
func TestCancellationWhilePartitionsWaitForAdmission(t *testing.T) {
	p := mustParse(t, `
pipeline: cancel_waiting
params: {partitions: 50}
max_in_flight: 2
stages:
  a: {type: test.block, workers: 50}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	started := map[int]bool{}
	e := mustEngine(t, p, Options{OnEvent: func(ev Event) {
		if ev.Kind == StageStarted {
			mu.Lock()
			started[ev.Partition] = true
			if len(started) == 2 {
				cancel()
			}
			mu.Unlock()
		}
	}})
	_, err := e.Run(ctx, Job{ID: "j"})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if len(started) != 2 {
		t.Errorf("%d partitions started, want the 2 admitted", len(started))
	}
	assertNothingHeld(t, e)
}

// Counts above the limits are refused before anything is allocated.
func TestEngineRefusesCountsAboveTheLimits(t *testing.T) {
	p := mustParse(t, "pipeline: p\nstages:\n  a: {type: sim.device}\n")
	if _, err := NewEngine(p, Options{Devices: 100_000_000}); err == nil || !strings.Contains(err.Error(), "100000000 devices is above 64, the limit on devices") {
		t.Errorf("NewEngine with 1e8 devices: %v, want the device limit named", err)
	}
	e := mustEngine(t, p, Options{})
	for _, n := range []int{MaxPartitions + 1, 1 << 32, int(^uint(0) >> 1)} {
		_, err := e.Run(context.Background(), Job{ID: "j", Partitions: n})
		if err == nil || !strings.Contains(err.Error(), "the limit on partitions per job") {
			t.Errorf("Run with %d partitions: %v, want the partition limit named", n, err)
		}
	}
}

// A Pipeline built in code rather than loaded may carry any MaxInFlight:
// a negative one takes the default, a huge one the partition limit.
func TestMaxInFlightOfAPipelineBuiltInCodeIsKeptInRange(t *testing.T) {
	p := mustParse(t, "pipeline: p\nstages:\n  a: {type: sim.sleep, workers: 3, config: {duration: 0s}}\n")
	for _, c := range []struct{ set, want int }{{-5, 3}, {0, 3}, {int(^uint(0) >> 1), MaxPartitions}, {7, 7}} {
		q := *p
		q.MaxInFlight = c.set
		e := mustEngine(t, &q, Options{})
		if e.MaxInFlight() != c.want {
			t.Errorf("MaxInFlight %d: engine bound %d, want %d", c.set, e.MaxInFlight(), c.want)
		}
		if _, err := e.Run(context.Background(), Job{Partitions: 4}); err != nil {
			t.Errorf("MaxInFlight %d: %v", c.set, err)
		}
	}
}
