package runtime

import (
	"context"
	"sync"
	"testing"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// A lock held through a span of stages is one hold, from before the span's
// first stage to after its last: the lock_hold span and the LockReleased
// event both say so, and they agree with each other.
func TestSpanLockIsOneHoldFromFirstToLastStage(t *testing.T) {
	p := mustParse(t, `
pipeline: holds
params: {partitions: 3}
resources:
  cpu: {capacity: 2}
  gpu.{gpu}.mem: {capacity: 2}
stages:
  prep: {type: sim.sleep, workers: 3, locks: [cpu], config: {duration: 2ms}}
  upload: {type: sim.sleep, needs: [prep], workers: 3, config: {duration: 2ms}}
  mid: {type: sim.sleep, needs: [upload], workers: 3, config: {duration: 2ms}}
  compute: {type: sim.sleep, needs: [mid], workers: 3, config: {duration: 2ms}}
spans:
  - {lock: "gpu.{gpu}.mem", from: upload, to: compute}
`)
	rec := stagetest.NewRecorder()
	var mu sync.Mutex
	var released []Event
	granted := map[string]int{}
	e := mustEngine(t, p, Options{Tracer: rec.TracerProvider(), OnEvent: func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Kind {
		case LockGranted:
			granted[ev.Resource]++
		case LockReleased:
			released = append(released, ev)
		}
	}})
	if _, err := e.Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	stageRuns := map[[2]any]stagetest.Interval{}
	for _, iv := range rec.Intervals(pl.KindStage) {
		stageRuns[[2]any{iv.Stage, iv.Partition}] = iv
	}
	holds := map[string][]stagetest.Interval{}
	for _, iv := range rec.Intervals(pl.KindLockHold) {
		holds[iv.Resource] = append(holds[iv.Resource], iv)
	}
	mem := holds["gpu.0.mem"]
	if len(mem) != 3 {
		t.Fatalf("%d lock_hold spans of gpu.0.mem, want 3 (one per partition, not one per stage)", len(mem))
	}
	for _, h := range mem {
		first, last := stageRuns[[2]any{"upload", h.Partition}], stageRuns[[2]any{"compute", h.Partition}]
		if h.Start.After(first.Start) || h.End.Before(last.End) {
			t.Errorf("partition %d: gpu.0.mem held %v-%v, want from before upload (%v) to after compute (%v)",
				h.Partition, h.Start, h.End, first.Start, last.End)
		}
	}
	if n := len(holds["cpu"]); n != 3 {
		t.Errorf("%d holds of cpu, want 3", n)
	}
	// Stages inside a {gpu} span have a worker pool per device.
	for _, pool := range []string{"workers.prep", "workers.upload.0", "workers.mid.0", "workers.compute.0"} {
		if n := len(holds[pool]); n != 3 {
			t.Errorf("%d holds of %s, want 3", n, pool)
		}
	}
	if len(released) != len(rec.Intervals(pl.KindLockHold)) {
		t.Errorf("%d LockReleased events, %d lock_hold spans", len(released), len(rec.Intervals(pl.KindLockHold)))
	}
	if granted["gpu.0.mem"] != 3 || granted["cpu"] != 3 {
		t.Errorf("LockGranted events: %v, want 3 each for gpu.0.mem and cpu", granted)
	}
	// The events carry the same interval as the spans.
	for _, ev := range released {
		if ev.Resource != "gpu.0.mem" {
			continue
		}
		found := false
		for _, h := range mem {
			if h.Partition == ev.Partition && h.Start.Equal(ev.Granted) && h.End.Equal(ev.Time) {
				found = true
			}
		}
		if !found || ev.Weight != 1 || ev.Capacity != 2 || ev.Stage != "upload" {
			t.Errorf("LockReleased %+v matches no lock_hold span of its partition (or wrong weight/capacity/stage)", ev)
		}
	}
}

// Recorded holds of a mutex never overlap, though each is recorded from
// the engine's side of the grant and the release.
func TestRecordedHoldsOfAMutexNeverOverlap(t *testing.T) {
	p := mustParse(t, `
pipeline: mutex
params: {partitions: 8}
resources:
  m: {}
stages:
  a: {type: sim.sleep, workers: 8, locks: [m], config: {duration: 1ms}}
  b: {type: sim.sleep, needs: [a], workers: 8, locks: [m], config: {duration: 1ms}}
`)
	rec := stagetest.NewRecorder()
	if _, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	var m []stagetest.Interval
	for _, iv := range rec.Intervals(pl.KindLockHold) {
		if iv.Resource == "m" {
			m = append(m, iv)
		}
	}
	if len(m) != 16 {
		t.Fatalf("%d holds of m, want 16", len(m))
	}
	for i := range m {
		for j := i + 1; j < len(m); j++ {
			if m[i].Overlaps(m[j]) {
				t.Errorf("holds of the mutex overlap: %v-%v and %v-%v", m[i].Start, m[i].End, m[j].Start, m[j].End)
			}
		}
	}
}
