package runtime

import (
	"time"

	"go.opentelemetry.io/otel/trace"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/resources"
)

// EventKind says what an Event reports.
type EventKind int

const (
	StageStarted  EventKind = iota // a stage instance got its worker and locks
	StageDone                      // a stage instance ended (Err set on failure)
	StageRetry                     // a stage instance failed retryably and will run again
	PartitionDone                  // every stage of a partition finished
	JobDone                        // every partition of a job finished
	JobFailed                      // a job failed or was cancelled (Err set)
	// LockGranted: a resource (a lock or a stage's worker pool) was granted
	// to a stage instance; Time is the grant, Wait the time queued for it.
	LockGranted
	// LockReleased: a grant ended; Time is the release, Granted and Wait
	// repeat the grant's. A lock held through a span of stages is released
	// after the span's last stage (or when its partition fails).
	LockReleased
)

var eventNames = [...]string{"stage_started", "stage_done", "stage_retry", "partition_done", "job_done", "job_failed",
	"lock_granted", "lock_released"}

func (k EventKind) String() string { return eventNames[k] }

// Event is a progress report from a running engine.
type Event struct {
	Kind      EventKind
	Time      time.Time
	Job       string
	Partition int    // -1 for job events
	Stage     string // empty for partition and job events; for lock events, the stage that acquired
	Device    int    // -1 when unplaced
	Err       error

	// Lock events only.
	Resource string        // concrete name: "gpu.0.mem", "workers.prep_msm"
	Weight   int64         // units held
	Capacity int64         // the resource's capacity
	Granted  time.Time     // when it was granted
	Wait     time.Duration // how long the acquisition queued for this resource (0: granted at once)
}

// lockWait is one queue an Acquire waited in, as resources reports it.
type lockWait struct {
	set      *resources.Set
	id       resources.ID
	from, to time.Time
}

// lockHold is one grant of one resource to one stage instance, recorded
// from the grant to the release: the runtime's record of who held what.
type lockHold struct {
	set     *resources.Set
	id      resources.ID
	weight  int64
	queued  time.Time // when the acquisition queued for it (== granted when it did not wait)
	granted time.Time
	stage   string
	device  int
}

// recordsHolds reports whether anyone reads lock holds: a recording
// partition span or an event callback.
func (pt *partition) recordsHolds() bool {
	return pt.js.e.onEvent != nil || trace.SpanFromContext(pt.ctx).IsRecording()
}

// granted turns a grant into one hold per resource, with the time each was
// granted. Resources are taken in canonical order, each after the one
// before; one that queued was granted when its wait ended, and one taken
// without queuing at the time the previous wait ended (or, before any wait,
// when the next wait began, or when Acquire returned). Where the exact
// moment is not reported the later bound is used, so a recorded hold never
// starts before the previous holder's recorded release.
func (pt *partition) granted(set *resources.Set, g *resources.Grant, claims []resources.Claim, waits []lockWait, s *Stage, device int) []*lockHold {
	returned := time.Now()
	ids := g.IDs()
	out := make([]*lockHold, 0, len(ids))
	var prev time.Time // end of the last wait before this resource
	for _, id := range ids {
		h := &lockHold{set: set, id: id, stage: s.Name, device: device}
		for _, c := range claims {
			if c.ID == id {
				h.weight += c.Weight
			}
		}
		waited := false
		for _, w := range waits {
			if w.set == set && w.id == id {
				h.queued, h.granted, waited = w.from, w.to, true
				prev = w.to
				break
			}
		}
		if !waited {
			switch {
			case !prev.IsZero():
				h.granted = prev
			default:
				h.granted = returned
				for _, w := range waits {
					if w.set == set {
						h.granted = w.from // the first wait: this was taken before it
						break
					}
				}
			}
			h.queued = h.granted
		}
		out = append(out, h)
		pt.emitLock(LockGranted, h, h.granted)
	}
	return out
}

// splitHold moves the span claim c out of the stage's holds: the stage
// keeps what it holds beyond c, and the returned hold (same grant time)
// lasts until the span's last stage.
func splitHold(holds []*lockHold, c resources.Claim) *lockHold {
	for _, h := range holds {
		if h.id == c.ID && h.weight >= c.Weight {
			sp := *h
			sp.weight = c.Weight
			h.weight -= c.Weight
			return &sp
		}
	}
	return nil
}

// released records the end of a hold at now: a lock_hold span under the
// partition span and a LockReleased event. releasedBy is the stage whose end
// released it ("" when the partition's end did).
func (pt *partition) released(h *lockHold, now time.Time, releasedBy string) {
	e := pt.js.e
	if trace.SpanFromContext(pt.ctx).IsRecording() {
		name := h.set.Name(h.id)
		_, span := e.tracer.Start(pt.ctx, "hold "+name, trace.WithTimestamp(h.granted), trace.WithAttributes(
			pl.KeyKind.String(pl.KindLockHold), pl.KeyPipeline.String(e.p.Name), pl.KeyJob.String(pt.js.job.ID),
			pl.KeyStage.String(h.stage), pl.KeyPartition.Int(pt.index), pl.KeyDevice.Int(h.device),
			pl.KeyResource.String(name), pl.KeyWeight.Int64(h.weight), pl.KeyCapacity.Int64(h.set.Capacity(h.id)),
			pl.KeyWaitMS.Float64(ms(h.granted.Sub(h.queued))), pl.KeyReleasedBy.String(releasedBy),
			pl.KeyResourceDevice.Int(h.set.Device(h.id))))
		span.End(trace.WithTimestamp(now))
	}
	pt.emitLock(LockReleased, h, now)
}

// emitLock reports a lock event with its own time (emit stamps the time of
// the call, which for a grant is later than the grant).
func (pt *partition) emitLock(kind EventKind, h *lockHold, at time.Time) {
	e := pt.js.e
	if e.onEvent == nil {
		return
	}
	e.onEvent(Event{Kind: kind, Time: at, Job: pt.js.job.ID, Partition: pt.index, Stage: h.stage, Device: h.device,
		Resource: h.set.Name(h.id), Weight: h.weight, Capacity: h.set.Capacity(h.id), Granted: h.granted, Wait: h.granted.Sub(h.queued)})
}
