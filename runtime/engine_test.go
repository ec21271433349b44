package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/sim"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// partitionRuns returns, per partition, the interval from the start of
// stage from to the end of stage to.
func partitionRuns(rec *stagetest.Recorder, from, to string) map[int]stagetest.Interval {
	out := map[int]stagetest.Interval{}
	for _, iv := range rec.Stage(from) {
		out[iv.Partition] = stagetest.Interval{Partition: iv.Partition, Start: iv.Start}
	}
	for _, iv := range rec.Stage(to) {
		r := out[iv.Partition]
		r.End = iv.End
		out[iv.Partition] = r
	}
	return out
}

func TestSpanLockSerializesCoveredStages(t *testing.T) {
	p := mustParse(t, `
pipeline: span
params: {partitions: 4}
resources:
  gpu.{gpu}.lock: {}
stages:
  prep: {type: sim.sleep, workers: 4, config: {duration: 5ms}}
  upload: {type: sim.sleep, needs: [prep], workers: 4, config: {duration: 5ms}}
  compute: {type: sim.sleep, needs: [upload], workers: 4, config: {duration: 5ms}}
spans:
  - {lock: "gpu.{gpu}.lock", from: upload, to: compute}
`)
	rec := stagetest.NewRecorder()
	if _, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	runs := partitionRuns(rec, "upload", "compute")
	if len(runs) != 4 {
		t.Fatalf("got %d partitions' runs, want 4", len(runs))
	}
	for i := range runs {
		for j := range runs {
			if i < j && runs[i].Overlaps(runs[j]) {
				t.Errorf("partitions %d and %d both inside the span at once: %v-%v and %v-%v", i, j,
					runs[i].Start, runs[i].End, runs[j].Start, runs[j].End)
			}
		}
	}
	// A stage inside the span reports the span's lock among those it holds.
	for _, iv := range rec.Stage("compute") {
		if len(iv.Locks) != 1 || iv.Locks[0] != "gpu.0.lock" {
			t.Errorf("compute of partition %d holds %v, want [gpu.0.lock]", iv.Partition, iv.Locks)
		}
	}
}

// The dual-worker layout: with the lock only around compute, partition 1's
// CPU stage runs while partition 0 holds the lock. Partition 0's compute
// and partition 1's prep meet at a barrier, so the job only succeeds if the
// runtime lets them overlap; the same stages under a span lock from prep to
// compute cannot meet, and the job fails (so the test can fail).
func TestStageLocksLetCPUWorkOverlapLockedWork(t *testing.T) {
	const layout = `
pipeline: dual
params: {partitions: 2}
resources:
  gpu.{gpu}.compute: {}
stages:
  prep: {type: test.barrier, workers: 2, config: {group: meet, partitions: [1], timeout: %s}}
  compute:
    type: test.barrier
    needs: [prep]
    workers: 2
    locks: %s
    config: {group: meet, partitions: [0], timeout: %s}
`
	t.Run("stage lock", func(t *testing.T) {
		p := mustParse(t, sprintf(layout, "20s", `["gpu.{gpu}.compute"]`, "20s"))
		rec := stagetest.NewRecorder()
		if _, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{}); err != nil {
			t.Fatalf("prep of partition 1 never ran beside compute of partition 0: %v", err)
		}
		var prep1, compute0 stagetest.Interval
		for _, iv := range rec.Stage("prep") {
			if iv.Partition == 1 {
				prep1 = iv
			}
		}
		for _, iv := range rec.Stage("compute") {
			if iv.Partition == 0 {
				compute0 = iv
			}
		}
		if !prep1.Overlaps(compute0) {
			t.Errorf("spans do not show the overlap: prep/1 %v-%v, compute/0 %v-%v", prep1.Start, prep1.End, compute0.Start, compute0.End)
		}
	})
	t.Run("span lock", func(t *testing.T) {
		p := mustParse(t, sprintf(layout, "300ms", `[]`, "300ms")+`
spans:
  - {lock: "gpu.{gpu}.compute", from: prep, to: compute}
`)
		_, err := mustEngine(t, p, Options{}).Run(context.Background(), Job{})
		if err == nil || !strings.Contains(err.Error(), "barrier") {
			t.Fatalf("under a span lock the stages met anyway: err = %v", err)
		}
	})
}

func TestSemaphoreOfCapacityTwoAdmitsExactlyTwo(t *testing.T) {
	p := mustParse(t, `
pipeline: sem
params: {partitions: 6}
resources:
  cpu_bandwidth: {capacity: 2}
stages:
  meet: {type: test.barrier, workers: 6, locks: [cpu_bandwidth], config: {n: 2}}
  work: {type: sim.sleep, needs: [meet], workers: 6, locks: [cpu_bandwidth], config: {duration: 10ms}}
`)
	rec := stagetest.NewRecorder()
	e := mustEngine(t, p, Options{Tracer: rec.TracerProvider()})
	if _, err := e.Run(context.Background(), Job{}); err != nil {
		t.Fatalf("two holders never met inside the semaphore: %v", err)
	}
	var all []stagetest.Interval
	all = append(all, rec.Stage("meet")...)
	all = append(all, rec.Stage("work")...)
	if got := stagetest.MaxConcurrent(all); got > 2 {
		t.Errorf("%d stages held cpu_bandwidth at once, capacity is 2", got)
	}
	var waited bool
	for _, iv := range rec.Intervals(pl.KindLockWait) {
		if iv.Resource == "cpu_bandwidth" {
			waited = true
		}
	}
	if !waited {
		t.Error("no lock_wait span on cpu_bandwidth although six partitions shared two units")
	}
}

func TestRetryableErrorIsRetriedThenSucceeds(t *testing.T) {
	p := mustParse(t, `
pipeline: retry
params: {partitions: 2}
stages:
  upload:
    type: sim.sleep
    retry: {attempts: 3, initial: 1ms, max: 5ms}
    config: {duration: 1ms, fail: {partitions: [1], attempts: 2, retryable: true, message: out of memory}}
`)
	rec := stagetest.NewRecorder()
	if _, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	var attempts []int
	for _, s := range rec.Spans() {
		if v, ok := stagetest.Attr(s, pl.KeyPartition); ok && v.AsInt64() == 1 {
			if a, ok := stagetest.Attr(s, pl.KeyAttempt); ok {
				attempts = append(attempts, int(a.AsInt64()))
			}
		}
	}
	if len(attempts) != 3 {
		t.Fatalf("partition 1 ran %d times (%v), want 3", len(attempts), attempts)
	}
}

func TestStageFailureFailsJobNamingStagePartitionAndCause(t *testing.T) {
	cases := []struct {
		name, fail, retry, want string
	}{
		{"not retryable", `{partitions: [2], message: bad witness}`, `{attempts: 3, initial: 1ms, max: 1ms}`,
			`job "j": partition 2: stage "synth" (sim.sleep) failed: bad witness (attempt 1): injected failure`},
		{"retries exhausted", `{partitions: [2], retryable: true, message: out of memory}`, `{attempts: 2, initial: 1ms, max: 1ms}`,
			`job "j": partition 2: stage "synth" (sim.sleep) failed after 2 attempts: out of memory (attempt 2): injected failure`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, `
pipeline: fail
params: {partitions: 4}
resources:
  cpu: {capacity: 2}
stages:
  synth: {type: sim.sleep, workers: 4, locks: [cpu], retry: `+c.retry+`, config: {duration: 1ms, fail: `+c.fail+`}}
  after: {type: sim.sleep, needs: [synth], config: {duration: 1ms}}
`)
			e := mustEngine(t, p, Options{})
			_, err := e.Run(context.Background(), Job{ID: "j"})
			if err == nil || err.Error() != c.want {
				t.Fatalf("error:\n got %v\nwant %s", err, c.want)
			}
			if !errors.Is(err, sim.ErrInjected) {
				t.Error("the stage's error is not wrapped")
			}
			assertNothingHeld(t, e)
		})
	}
}

func assertNothingHeld(t *testing.T, e *Engine) {
	t.Helper()
	for _, st := range e.Stats() {
		if st.InUse != 0 || st.Queued != 0 {
			t.Errorf("%s: %d units held, %d waiters after the job", st.Name, st.InUse, st.Queued)
		}
	}
}

func TestCancellationMidRunReleasesEveryLock(t *testing.T) {
	p := mustParse(t, `
pipeline: cancel
params: {partitions: 4}
resources:
  cpu: {capacity: 2}
  gpu.{gpu}.mem: {}
  gpu.{gpu}.compute: {}
stages:
  prep: {type: sim.sleep, workers: 4, locks: [cpu], config: {duration: 1ms}}
  upload: {type: sim.device, needs: [prep], workers: 2, locks: ["gpu.{gpu}.mem"], config: {duration: 1ms}}
  compute: {type: test.block, needs: [upload], workers: 2}
spans:
  - {lock: "gpu.{gpu}.compute", from: upload, to: compute}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{}, 8)
	e := mustEngine(t, p, Options{Devices: 2, OnEvent: func(ev Event) {
		if ev.Kind == StageStarted && ev.Stage == "compute" {
			started <- struct{}{}
		}
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := e.Run(ctx, Job{ID: "c"})
		errc <- err
	}()
	<-started // a partition holds gpu.N.compute, others queue behind it
	cancel()
	select {
	case err := <-errc:
		if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `job "c" cancelled`) {
			t.Fatalf("err = %v, want job cancelled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	assertNothingHeld(t, e)
}

func TestPartitionsSpreadOverDevicesWithIndependentLocks(t *testing.T) {
	p := mustParse(t, `
pipeline: place
params: {partitions: 4}
devices: 2
resources:
  gpu.{gpu}.compute: {}
stages:
  meet: {type: test.barrier, workers: 2, locks: ["gpu.{gpu}.compute"], config: {n: 2}}
`)
	rec := stagetest.NewRecorder()
	res, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{})
	if err != nil {
		t.Fatalf("the two devices' locks did not let two partitions in at once: %v", err)
	}
	perDevice := map[int]int{}
	for _, pr := range res.Partitions {
		perDevice[pr.Device]++
	}
	if perDevice[0] == 0 || perDevice[1] == 0 {
		t.Errorf("partitions per device = %v, want both devices used", perDevice)
	}
	for _, iv := range rec.Stage("meet") {
		want := sprintf("gpu.%d.compute", iv.Device)
		if len(iv.Locks) != 1 || iv.Locks[0] != want {
			t.Errorf("partition %d on device %d holds %v, want [%s]", iv.Partition, iv.Device, iv.Locks, want)
		}
	}
}

func TestSpanTreeHasJobPartitionStageAndLockWaitSpans(t *testing.T) {
	p := mustParse(t, `
pipeline: tree
params: {partitions: 3}
resources:
  gpu.{gpu}.compute: {}
stages:
  a: {type: test.barrier, workers: 3, config: {n: 3}}
  b: {type: sim.sleep, needs: [a], workers: 3, locks: ["gpu.{gpu}.compute"], config: {duration: 20ms}}
`)
	rec := stagetest.NewRecorder()
	if _, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	jobs, parts := rec.Intervals(pl.KindJob), rec.Intervals(pl.KindPartition)
	if len(jobs) != 1 || len(parts) != 3 {
		t.Fatalf("%d job spans and %d partition spans, want 1 and 3", len(jobs), len(parts))
	}
	partByID := map[string]bool{}
	for _, pt := range parts {
		if pt.ParentID != jobs[0].SpanID {
			t.Errorf("partition %d is not a child of the job span", pt.Partition)
		}
		partByID[pt.SpanID.String()] = true
	}
	stagesSeen := rec.Intervals(pl.KindStage)
	if len(stagesSeen) != 6 {
		t.Errorf("%d stage spans, want 6", len(stagesSeen))
	}
	waits := rec.Intervals(pl.KindLockWait)
	if len(waits) == 0 {
		t.Error("no lock_wait spans although three partitions shared one mutex")
	}
	for _, iv := range append(stagesSeen, waits...) {
		if !partByID[iv.ParentID.String()] {
			t.Errorf("%s span %q is not a child of a partition span", iv.Kind, iv.Name)
		}
	}
}

func TestFailedPartitionReleasesOutputsNobodyWillRead(t *testing.T) {
	p := mustParse(t, `
pipeline: leak
params: {partitions: 1}
stages:
  upload: {type: test.hold}
  compute: {type: sim.sleep, needs: [upload], config: {duration: 1ms, fail: {message: kernel failed}}}
`)
	if _, err := mustEngine(t, p, Options{}).Run(context.Background(), Job{}); err == nil {
		t.Fatal("job succeeded, want the injected failure")
	}
	h := <-heldOut
	if n := h.released.Load(); n != 1 {
		t.Errorf("upload's output released %d times, want 1", n)
	}
}

// A host stage still running while its partition is placed on a device by a
// sibling branch: the race detector catches any shared read of the
// placement (found by a full -race run of the Groth16 layouts).
func TestPlacementWhileAHostBranchRunsIsRaceFree(t *testing.T) {
	p := mustParse(t, `
pipeline: branches
params: {partitions: 8}
devices: 2
resources:
  gpu.{gpu}.compute: {}
stages:
  prep: {type: sim.sleep, workers: 8, config: {duration: 1ms}}
  g2: {type: sim.sleep, needs: [prep], workers: 8, retry: {attempts: 2, initial: 1ms, max: 1ms}, config: {duration: 3ms, fail: {attempts: 1, retryable: true}}}
  upload: {type: test.noop, needs: [prep], workers: 8}
  compute: {type: sim.device, needs: [upload], workers: 2, locks: ["gpu.{gpu}.compute"], config: {duration: 1ms}}
  epilogue: {type: test.noop, needs: [g2, compute]}
`)
	rec := stagetest.NewRecorder()
	if _, err := mustEngine(t, p, Options{Tracer: rec.TracerProvider()}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	for _, iv := range rec.Stage("g2") {
		if iv.Device != -1 {
			t.Errorf("g2 of partition %d reports device %d; it was launched before placement", iv.Partition, iv.Device)
		}
	}
}

func TestConfigThatNeedsTheDevicePlacesThePartition(t *testing.T) {
	p := mustParse(t, `
pipeline: g2
params: {partitions: 2}
devices: 2
stages:
  host: {type: test.where, config: {device: false}}
  dev: {type: test.where, needs: [host], config: {device: true}}
`)
	if p.Stages[0].DeviceBound || !p.Stages[1].DeviceBound {
		t.Fatalf("device-bound: host %v, dev %v; want false, true", p.Stages[0].DeviceBound, p.Stages[1].DeviceBound)
	}
	res, err := mustEngine(t, p, Options{}).Run(context.Background(), Job{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range res.Partitions {
		if got := pr.Outputs["dev"].(int); got != pr.Device || got < 0 {
			t.Errorf("partition %d: stage saw device %d, partition placed on %d", pr.Index, got, pr.Device)
		}
	}
}

// Partitions placed one after another, each finished before the next is
// placed, still spread over every device: ties in load go to the device
// given the fewest so far (without that, all would land on device 0).
func TestSequentialPartitionsSpreadOverEveryDevice(t *testing.T) {
	p := mustParse(t, `
pipeline: seq
devices: 3
stages:
  only: {type: test.where, config: {device: true}}
`)
	e := mustEngine(t, p, Options{})
	var got []int
	for range 6 {
		res, err := e.Run(context.Background(), Job{Partitions: 1})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.Partitions[0].Device)
	}
	if want := []int{0, 1, 2, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("devices of successive jobs %v, want %v", got, want)
	}
}

// A stage that needs another only for ordering does not read its output:
// that output is freed when it is produced, not kept for the rest of the
// partition and then dropped without Release.
func TestOutputNobodyReadsIsReleasedOnSuccess(t *testing.T) {
	drainHeld()
	p := mustParse(t, `
pipeline: ordering
params: {partitions: 1}
stages:
  upload: {type: test.hold}
  after: {type: sim.sleep, needs: [upload], config: {duration: 0s}}
`)
	if _, err := mustEngine(t, p, Options{}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	h := <-heldOut
	if n := h.released.Load(); n != 1 {
		t.Errorf("upload's output released %d times, want 1", n)
	}
}

func drainHeld() {
	for {
		select {
		case <-heldOut:
		default:
			return
		}
	}
}

// When one partition fails after another has finished, the job returns no
// Result: the finished partition's outputs are released too.
func TestFailedJobReleasesOutputsOfFinishedPartitions(t *testing.T) {
	drainHeld()
	reg := testRegistry(t)
	firstDone := make(chan struct{})
	err := reg.Register(stages.Factory{Type: "test.fail_after_first", Doc: "partition 1 fails once partition 0 is done", Output: "test.b",
		New: func(stages.Config) (stages.Stage, error) {
			return stageFunc(func(ctx context.Context, in *stages.Input) (any, error) {
				if in.Partition == 0 {
					return nil, nil
				}
				select {
				case <-firstDone:
					return nil, errors.New("injected")
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("test.yaml", []byte(`
pipeline: late_failure
params: {partitions: 2}
stages:
  result: {type: test.hold}
  check: {type: test.fail_after_first, workers: 2}
`), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := mustEngine(t, p, Options{OnEvent: func(ev Event) {
		if ev.Kind == PartitionDone && ev.Partition == 0 {
			close(firstDone)
		}
	}})
	if _, err := e.Run(context.Background(), Job{}); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("Run = %v, want the injected failure", err)
	}
	// Partition 0's result for sure; partition 1's if it ran before the
	// failure cancelled it.
	for i := 0; ; i++ {
		select {
		case h := <-heldOut:
			if n := h.released.Load(); n != 1 {
				t.Errorf("a result released %d times, want 1", n)
			}
			continue
		default:
		}
		if i == 0 {
			t.Error("no result was produced")
		}
		break
	}
}

// retry.max is the ceiling of every wait, jitter included.
func TestRetryBackoffNeverExceedsMax(t *testing.T) {
	r := Retry{Attempts: 50, Initial: 100 * time.Millisecond, Max: 400 * time.Millisecond}
	next := r.backoff()
	atMax := 0
	for i := 0; i < 200; i++ {
		d := next()
		if d > r.Max || d < 0 {
			t.Fatalf("wait %d is %s, want within [0, %s]", i, d, r.Max)
		}
		if d == r.Max {
			atMax++
		}
	}
	if atMax == 0 {
		t.Errorf("no wait reached max %s in 200 draws, want the ceiling to be reached", r.Max)
	}
}

// Cancelling a job while a stage waits out its retry backoff ends the wait
// at once and releases the span lock the partition holds across it.
func TestCancellationDuringRetryBackoffReleasesSpanLocks(t *testing.T) {
	p := mustParse(t, `
pipeline: backoff
params: {partitions: 2}
resources:
  gpu.{gpu}.mem: {}
stages:
  upload: {type: sim.device, config: {duration: 0s}}
  compute:
    type: sim.sleep
    needs: [upload]
    retry: {attempts: 5, initial: 1h, max: 1h}
    config: {duration: 0s, fail: {retryable: true, message: out of memory}}
spans:
  - {lock: "gpu.{gpu}.mem", from: upload, to: compute}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := mustEngine(t, p, Options{OnEvent: func(ev Event) {
		if ev.Kind == StageRetry {
			cancel() // the stage is about to wait an hour
		}
	}})
	_, err := e.Run(ctx, Job{ID: "b"})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want job cancelled", err)
	}
	assertNothingHeld(t, e)
}

// A failure inside a span releases the span's lock with the partition, and
// the other partitions waiting for it are cancelled, not left queued.
func TestFailureInsideASpanReleasesItsLock(t *testing.T) {
	p := mustParse(t, `
pipeline: span_failure
params: {partitions: 3}
resources:
  gpu.{gpu}.compute: {}
stages:
  upload: {type: sim.device, config: {duration: 0s}}
  compute: {type: sim.sleep, needs: [upload], config: {duration: 0s, fail: {message: kernel failed}}}
  epilogue: {type: sim.sleep, needs: [compute], config: {duration: 0s}}
spans:
  - {lock: "gpu.{gpu}.compute", from: upload, to: epilogue}
`)
	e := mustEngine(t, p, Options{})
	if _, err := e.Run(context.Background(), Job{ID: "f"}); err == nil || !strings.Contains(err.Error(), "kernel failed") {
		t.Fatalf("err = %v, want the kernel failure", err)
	}
	assertNothingHeld(t, e)
}

// workers: is a bound, not an allocation: a huge value (a typo, or "no
// limit") must not make the engine allocate a slot per worker up front.
func TestHugeWorkerCountCostsNothingUpFront(t *testing.T) {
	p := mustParse(t, `
pipeline: wide
params: {partitions: 3}
stages:
  a: {type: sim.sleep, workers: 1000000000000, config: {duration: 0s}}
`)
	if _, err := mustEngine(t, p, Options{}).Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
}

// A job whose stage failed keeps that failure as its error when the
// caller's context is cancelled afterwards (say Ctrl-C while it winds down).
func TestStageFailureIsNotHiddenByALaterCancellation(t *testing.T) {
	p := mustParse(t, `
pipeline: fail_then_cancel
params: {partitions: 1}
stages:
  synth: {type: sim.sleep, config: {duration: 0s, fail: {message: bad witness}}}
  wait: {type: test.block}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := mustEngine(t, p, Options{OnEvent: func(ev Event) {
		if ev.Kind == StageDone && ev.Stage == "wait" {
			cancel() // wait ends when synth's failure cancels the job
		}
	}})
	_, err := e.Run(ctx, Job{ID: "j"})
	if err == nil || !strings.Contains(err.Error(), `stage "synth"`) || !errors.Is(err, sim.ErrInjected) {
		t.Fatalf("err = %v, want the stage's failure", err)
	}
}
