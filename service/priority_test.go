package service

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
)

// holdStage records the order its instances start in and holds each
// until the gate opens.
type holdStage struct {
	mu    sync.Mutex
	order []string
	gate  chan struct{}
}

func (h *holdStage) Run(ctx context.Context, in *stages.Input) (any, error) {
	h.mu.Lock()
	h.order = append(h.order, fmt.Sprintf("%s/%d", in.JobID, in.Partition))
	h.mu.Unlock()
	select {
	case <-h.gate:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// The runtime's lock priorities carry a job's lane: a CRITICAL job's
// partition queued behind a NORMAL job's is granted the stage's one worker
// first, waiting only for the partition that holds it.
func TestJobPriorityOvertakesQueuedPartitionsOfLowerJobs(t *testing.T) {
	hs := &holdStage{gate: make(chan struct{})}
	reg := stages.NewRegistry().MustRegister(stages.Factory{
		Type: "test.hold", Doc: "holds until the test's gate opens",
		New: func(stages.Config) (stages.Stage, error) { return hs, nil },
	})
	p, err := runtime.Parse("hold.yaml", []byte("pipeline: hold\nmax_in_flight: 4\nstages:\n  h: {type: test.hold, workers: 1}\n"), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := runtime.NewEngine(p, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	queued := func() int {
		for _, s := range e.Stats() {
			if s.Name == "workers.h" {
				return s.Queued
			}
		}
		return -1
	}
	var wg sync.WaitGroup
	run := func(id string, partitions int, prio int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Run(context.Background(), runtime.Job{ID: id, Partitions: partitions, Payload: struct{}{}, Priority: prio}); err != nil {
				t.Error(err)
			}
		}()
	}
	run("normal", 3, LanePriority(2))
	waitFor(t, "one normal partition running, two queued", func() bool { return queued() == 2 })
	run("critical", 1, LanePriority(4))
	waitFor(t, "the critical partition queued", func() bool { return queued() == 3 })
	close(hs.gate)
	wg.Wait()
	// The normal partition that got the worker first, then the critical
	// one, then the normal ones that were queued before it.
	if len(hs.order) != 4 || !strings.HasPrefix(hs.order[0], "normal/") || hs.order[1] != "critical/0" {
		t.Errorf("start order %v: want a normal partition (already running), then critical/0", hs.order)
	}
}
