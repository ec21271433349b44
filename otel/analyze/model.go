package analyze

import (
	"strconv"
	"strings"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// trace is what a report keeps of a trace's spans: for each job, stage,
// kernel, lock_wait and lock_hold span a small record of the fields the
// figures read, with its strings interned; counts and sums for the rest;
// and, for the timeline, up to a bound of spans whole (see timeline).
type trace struct {
	spans      int
	start, end time.Time
	jobs       []jobRun
	parts      int            // partition spans
	okParts    map[string]int // partition spans that did not fail, by job (jobOf)
	stages     []stageRun
	kerns      []kernelRun
	waits      []lockWait
	holds      []lockstats.Hold // of the lock_hold spans
	// resDevice is the device of each resource as its lock_hold spans
	// record it (see deviceOf).
	resDevice map[string]int
	// resource is the first span's resource, and jobAttrs the attributes
	// every job span carries with one value (as attrText prints it): the
	// HTML header's.
	resource map[string]any
	jobAttrs map[string]string
	timeline timeline
}

// jobRun is a job span.
type jobRun struct {
	Start, End time.Time
	job        string // jobOf
	id         string // prooflane.job
	failed     bool
}

// stageRun is a stage span.
type stageRun struct {
	Start, End time.Time
	stage      string // stageName
	typ        string // prooflane.stage_type
	job        string // jobOf
	msg        string // the status message of a failed run
	locks      []string
	part       int64 // prooflane.partition, -1 when absent
	device     int64 // prooflane.device, -1 when absent
	attempt    int64 // prooflane.attempt, 1 when absent
	wait       time.Duration
	failed     bool
	busy       int8 // prooflane.device_busy: 1 true, 0 present and not true, -1 absent
}

// kernelRun is a kernel span.
type kernelRun struct {
	Start, End time.Time
	name       string // prooflane.kernel, or the span name
	device     int64
	gpu        time.Duration // prooflane.gpu_time_ms, 0 when absent
}

// lockWait is a lock_wait span.
type lockWait struct {
	Start, End time.Time
	name       string // the span name
	stage      string // prooflane.stage, "" when absent
	res        string // prooflane.resource, "" when absent
	job        string
	part       int64
}

func (s *stageRun) iv() interval          { return interval{s.Start, s.End} }
func (s *stageRun) dur() time.Duration    { return s.End.Sub(s.Start) }
func (s *stageRun) partOf() partKey       { return partKey{s.job, s.part} }
func (k *kernelRun) iv() interval         { return interval{k.Start, k.End} }
func (w *lockWait) dur() time.Duration    { return w.End.Sub(w.Start) }
func (w *lockWait) partOf() partKey       { return partKey{w.job, w.part} }
func (j *jobRun) duration() time.Duration { return j.End.Sub(j.Start) }

// stageName is the stage a wait queued for: prooflane.stage, or the span
// name.
func (w *lockWait) stageName() string {
	if w.stage != "" {
		return w.stage
	}
	return w.name
}

// resource is the resource waited for: prooflane.resource, or the span
// name after "wait ".
func (w *lockWait) resource() string {
	if w.res != "" {
		return w.res
	}
	return strings.TrimPrefix(w.name, "wait ")
}

// deviceOf is the device a resource belongs to, -1 for the machine's: as
// the trace's lock_hold spans record it (prooflane.resource_device), or,
// for a resource without the attribute (an older trace), parsed from a
// gpu.<N>. name.
func (t *trace) deviceOf(resource string) int {
	if d, ok := t.resDevice[resource]; ok {
		return d
	}
	return deviceOfResource(resource)
}

// jobOf identifies the job a span belongs to: its trace (a job's spans
// share the job span's trace) and its prooflane.job attribute, so jobs of
// separate runs that reuse an id ("job-1") stay apart.
func jobOf(s *tracefile.Span) string {
	return s.TraceID + "/" + s.Str(string(pl.KeyJob))
}

// partKey identifies one partition of one job.
type partKey struct {
	job  string
	part int64
}

// deviceOfResource guesses the device of a resource of an older trace
// from its name ("gpu.0.compute" → 0, "workers.gpu_compute.1" → 1 is not
// parsed: only the gpu.<N>. prefix counts); -1 otherwise. Traces that
// record prooflane.resource_device are read through trace.deviceOf.
func deviceOfResource(name string) int {
	rest, ok := strings.CutPrefix(name, "gpu.")
	if !ok {
		return -1
	}
	num, _, _ := strings.Cut(rest, ".")
	d, err := strconv.Atoi(num)
	if err != nil || d < 0 {
		return -1
	}
	return d
}

// waitOf is the queued time the runtime recorded on a span.
func waitOf(s *tracefile.Span) time.Duration {
	f, _ := s.Float(string(pl.KeyWaitMS))
	return time.Duration(f * float64(time.Millisecond))
}

// stageName is a span's prooflane.stage, or its name.
func stageName(s *tracefile.Span) string {
	if n := s.Str(string(pl.KeyStage)); n != "" {
		return n
	}
	return s.Name
}

// holdOf reads a lock_hold span.
func holdOf(s *tracefile.Span) lockstats.Hold {
	h := lockstats.Hold{Resource: s.Str(string(pl.KeyResource)), Granted: s.Start, Released: s.End,
		Weight: s.IntOr(string(pl.KeyWeight), 1), Capacity: s.IntOr(string(pl.KeyCapacity), 0), Wait: waitOf(s)}
	if h.Resource == "" {
		h.Resource = strings.TrimPrefix(s.Name, "hold ")
	}
	return h
}
