package runtime

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/cenkalti/backoff/v4"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/resources"
	"github.com/prooflane/prooflane/stages"
)

// partition is one instance of the DAG. Its fields are owned by the
// partition's goroutine; stage goroutines read the device from their Input
// (fixed at launch), never from here. The exception is spanGrants and
// spanHolds: a span's grant is written by the goroutine running the span's
// first stage and read by the one running its last, which the done channel
// orders.
type partition struct {
	js         *jobState
	index      int
	device     int
	ctx        context.Context // carries the partition span
	spanGrants []*resources.Grant
	spanHolds  []*lockHold // the hold record of each span's grant, when recorded
}

type stageDone struct {
	s   *Stage
	out any
	err error
}

func (js *jobState) runPartition(i int, res *PartitionResult) {
	e := js.e
	ctx, span := e.tracer.Start(js.ctx, fmt.Sprintf("partition %d", i), trace.WithAttributes(
		pl.KeyKind.String(pl.KindPartition), pl.KeyPipeline.String(e.p.Name),
		pl.KeyJob.String(js.job.ID), pl.KeyPartition.Int(i)))
	pt := &partition{js: js, index: i, device: -1, ctx: ctx,
		spanGrants: make([]*resources.Grant, len(e.p.Spans)), spanHolds: make([]*lockHold, len(e.p.Spans))}
	defer func() {
		for j, g := range pt.spanGrants {
			if g != nil {
				// A span cut short by a failure: released with the partition.
				now := time.Now()
				g.Release()
				if h := pt.spanHolds[j]; h != nil {
					pt.released(h, now, "")
				}
			}
		}
		if pt.device >= 0 {
			e.unplace(pt.device)
		}
		span.SetAttributes(pl.KeyDevice.Int(pt.device))
		span.End()
	}()

	stagesN := len(e.p.Stages)
	pending := make([]int, stagesN)
	readers := make([]int, stagesN)
	outputs := make([]any, stagesN)
	for _, s := range e.p.Stages {
		pending[s.index] = len(s.Needs)
		for _, in := range s.inputs {
			readers[in.index]++
		}
	}
	done := make(chan stageDone, stagesN)
	running, failed := 0, false
	launch := func(s *Stage) {
		if s.DeviceBound && pt.device < 0 {
			pt.device = e.place()
			span.SetAttributes(pl.KeyDevice.Int(pt.device))
		}
		var vals map[stages.DataType]any
		if len(s.inputs) > 0 {
			vals = make(map[stages.DataType]any, len(s.inputs))
			for t, from := range s.inputs {
				vals[t] = outputs[from.index]
			}
		}
		in := stages.NewInput(vals)
		in.Job, in.JobID, in.Stage, in.Partition, in.Device = js.job.Payload, js.job.ID, s.Name, i, pt.device
		running++
		go func() {
			out, err := pt.runStage(s, in)
			done <- stageDone{s, out, err}
		}()
	}
	for _, s := range e.p.Stages {
		if pending[s.index] == 0 {
			launch(s)
		}
	}
	for running > 0 {
		d := <-done
		running--
		if d.err != nil {
			failed = true
			js.fail(d.err) // only the first failure counts; later ones are its cancellations
			span.RecordError(d.err)
			span.SetStatus(codes.Error, d.err.Error())
			continue
		}
		outputs[d.s.index] = d.out
		if readers[d.s.index] == 0 && len(d.s.dependents) > 0 {
			// Needed only for ordering: no stage reads this output and it
			// is not a result, so free it now rather than at the end.
			release(d.out)
			outputs[d.s.index] = nil
		}
		for _, from := range d.s.inputs {
			if readers[from.index]--; readers[from.index] == 0 && len(from.dependents) > 0 {
				outputs[from.index] = nil // last reader done: let it be collected
			}
		}
		if failed {
			continue
		}
		for _, next := range d.s.dependents {
			if pending[next.index]--; pending[next.index] == 0 {
				launch(next)
			}
		}
	}
	res.Index, res.Device = i, pt.device
	if failed {
		// Nothing will read what is left: free what lives outside the heap.
		for _, out := range outputs {
			release(out)
		}
		return
	}
	res.Outputs = map[string]any{}
	for _, s := range e.p.Stages {
		if len(s.dependents) == 0 {
			res.Outputs[s.Name] = outputs[s.index]
		}
	}
	e.emit(Event{Kind: PartitionDone, Job: js.job.ID, Partition: i, Device: pt.device})
}

// release frees an output that nobody will read, if it holds anything
// outside Go's heap (stages.Releaser).
func release(out any) {
	if r, ok := out.(stages.Releaser); ok {
		r.Release()
	}
}

// runStage runs one stage instance, retrying as its policy allows.
func (pt *partition) runStage(s *Stage, in *stages.Input) (any, error) {
	e := pt.js.e
	var next func() time.Duration
	for attempt := 1; ; attempt++ {
		in.Attempt = attempt
		out, err := pt.attempt(s, in)
		if err == nil {
			return out, nil
		}
		if pt.js.ctx.Err() != nil || !stages.IsRetryable(err) || attempt >= s.Retry.Attempts {
			var se *StageError
			if errors.As(err, &se) {
				return nil, err
			}
			return nil, pt.stageError(s, in, attempt, err)
		}
		if next == nil {
			next = s.Retry.backoff()
		}
		wait := next()
		e.emit(Event{Kind: StageRetry, Job: pt.js.job.ID, Partition: pt.index, Stage: s.Name, Device: in.Device, Err: err})
		t := time.NewTimer(wait)
		select {
		case <-pt.js.ctx.Done():
			t.Stop()
			return nil, pt.stageError(s, in, attempt, err)
		case <-t.C:
		}
	}
}

// stageError is a failed stage instance's error. When the job was being
// cancelled as it failed, the error also wraps the cancellation (unless it
// does already), so that Run can tell a cancelled job from a failed one.
func (pt *partition) stageError(s *Stage, in *stages.Input, attempts int, err error) *StageError {
	if cerr := pt.js.ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w (while the job was cancelled: %w)", err, cerr)
	}
	return &StageError{Job: pt.js.job.ID, Partition: pt.index, Stage: s.Name, Type: s.Type, Device: in.Device, Attempts: attempts, Err: err}
}

// backoff returns the waits between attempts: exponential from Initial,
// jittered, and never above Max (the jitter of cenkalti/backoff alone goes
// up to half above its ceiling).
func (r Retry) backoff() func() time.Duration {
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval, bo.MaxInterval, bo.MaxElapsedTime = r.Initial, r.Max, 0
	bo.Reset()
	return func() time.Duration { return min(bo.NextBackOff(), r.Max) }
}

// attempt takes a worker slot and the stage's locks, runs the stage once
// and gives back what it took (keeping span locks on success).
func (pt *partition) attempt(s *Stage, in *stages.Input) (out any, err error) {
	e, ctx := pt.js.e, pt.js.ctx
	d := 0
	if s.DeviceBound {
		d = in.Device
	}
	plan := &e.plan[s.index]
	queued := time.Now()
	record := pt.recordsHolds()
	var waits []lockWait
	onWait := func(set *resources.Set) func(resources.ID, int64, time.Time, time.Time) {
		return func(id resources.ID, w int64, from, to time.Time) {
			if record {
				waits = append(waits, lockWait{set, id, from, to})
			}
			pt.lockWaitSpan(s, in.Device, set.Name(id), w, from, to)
		}
	}
	workerClaim := []resources.Claim{{ID: plan.worker[d], Weight: 1}}
	wg, err := e.workers.Acquire(ctx, workerClaim, s.Priority+pt.js.job.Priority, onWait(e.workers))
	if err != nil {
		return nil, err
	}
	var workerHolds []*lockHold
	if record {
		workerHolds = pt.granted(e.workers, wg, workerClaim, waits, s, in.Device)
		waits = waits[:0]
	}
	defer func() {
		now := time.Now()
		wg.Release()
		for _, h := range workerHolds {
			pt.released(h, now, s.Name)
		}
	}()
	slot := plan.slots[d].get()
	defer plan.slots[d].put(slot)
	lg, err := e.locks.Acquire(ctx, plan.start[d], s.Priority+pt.js.job.Priority, onWait(e.locks))
	if err != nil {
		return nil, err
	}
	waitedTotal := time.Since(queued)
	var lockHolds []*lockHold
	if record {
		lockHolds = pt.granted(e.locks, lg, plan.start[d], waits, s, in.Device)
	}

	in.Worker = slot
	sctx, span := e.tracer.Start(pt.ctx, s.Name)
	if span.IsRecording() { // attributes cost allocations; skip them when tracing is off
		span.SetAttributes(
			pl.KeyKind.String(pl.KindStage), pl.KeyPipeline.String(e.p.Name), pl.KeyJob.String(pt.js.job.ID),
			pl.KeyStage.String(s.Name), pl.KeyStageType.String(s.Type), pl.KeyPartition.Int(pt.index),
			pl.KeyDevice.Int(in.Device), pl.KeyWorker.Int(slot), pl.KeyAttempt.Int(in.Attempt),
			pl.KeyLocks.StringSlice(plan.locks[d]), pl.KeyWaitMS.Float64(ms(waitedTotal)), pl.KeyDeviceBusy.Bool(s.DeviceBusy))
	}
	e.emit(Event{Kind: StageStarted, Job: pt.js.job.ID, Partition: pt.index, Stage: s.Name, Device: in.Device})
	began := time.Now()
	// sctx descends from the job's context, so cancellation reaches the
	// stage, and carries the stage span for the stage's own child spans.
	out, err = safeRun(sctx, plan.impl, in)
	held := time.Since(began)
	if span.IsRecording() {
		span.SetAttributes(pl.KeyHoldMS.Float64(ms(held)))
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()

	// Release: span locks starting here are kept on success; spans ending
	// here are released with the stage's own locks.
	if err == nil {
		for j, sp := range s.spanStarts {
			c := plan.spans[d][j : j+1]
			pt.spanGrants[sp.index] = lg.Split(c)
			if record {
				pt.spanHolds[sp.index] = splitHold(lockHolds, c[0])
			}
		}
	}
	now := time.Now()
	lg.Release()
	for _, h := range lockHolds {
		if h.weight > 0 {
			pt.released(h, now, s.Name)
		}
	}
	if err == nil {
		for _, sp := range s.spanEnds {
			if g := pt.spanGrants[sp.index]; g != nil {
				now := time.Now()
				g.Release()
				if h := pt.spanHolds[sp.index]; h != nil {
					pt.released(h, now, s.Name)
				}
				pt.spanGrants[sp.index], pt.spanHolds[sp.index] = nil, nil
			}
		}
	}
	e.emit(Event{Kind: StageDone, Job: pt.js.job.ID, Partition: pt.index, Stage: s.Name, Device: in.Device, Err: err})
	return out, err
}

func (pt *partition) lockWaitSpan(s *Stage, device int, resource string, weight int64, from, to time.Time) {
	e := pt.js.e
	if !trace.SpanFromContext(pt.ctx).IsRecording() {
		return
	}
	_, span := e.tracer.Start(pt.ctx, "wait "+resource, trace.WithTimestamp(from), trace.WithAttributes(
		pl.KeyKind.String(pl.KindLockWait), pl.KeyPipeline.String(e.p.Name), pl.KeyJob.String(pt.js.job.ID),
		pl.KeyStage.String(s.Name), pl.KeyPartition.Int(pt.index), pl.KeyDevice.Int(device),
		pl.KeyResource.String(resource), pl.KeyWeight.Int64(weight), pl.KeyWaitMS.Float64(ms(to.Sub(from)))))
	span.End(trace.WithTimestamp(to))
}

// safeRun runs a stage, turning a panic into an error so one bad stage
// fails its job instead of the process.
func safeRun(ctx context.Context, impl stages.Stage, in *stages.Input) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stage panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return impl.Run(ctx, in)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
