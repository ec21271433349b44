package analyze

import (
	"strconv"
	"strings"
	"time"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// trace indexes a trace's spans by kind.
type trace struct {
	all    []*tracefile.Span
	jobs   []*tracefile.Span
	parts  []*tracefile.Span
	stages []*tracefile.Span
	kerns  []*tracefile.Span
	waits  []*tracefile.Span
	holds  []*tracefile.Span
	start  time.Time
	end    time.Time
	// resDevice is the device of each resource as its lock_hold spans
	// record it (see deviceOf).
	resDevice map[string]int
}

func index(spans []tracefile.Span) *trace {
	t := &trace{}
	for i := range spans {
		s := &spans[i]
		t.all = append(t.all, s)
		if t.start.IsZero() || s.Start.Before(t.start) {
			t.start = s.Start
		}
		if s.End.After(t.end) {
			t.end = s.End
		}
		switch s.Str(string(pl.KeyKind)) {
		case pl.KindJob:
			t.jobs = append(t.jobs, s)
		case pl.KindPartition:
			t.parts = append(t.parts, s)
		case pl.KindStage:
			t.stages = append(t.stages, s)
		case pl.KindKernel:
			t.kerns = append(t.kerns, s)
		case pl.KindLockWait:
			t.waits = append(t.waits, s)
		case pl.KindLockHold:
			t.holds = append(t.holds, s)
		}
	}
	t.resDevice = map[string]int{}
	for _, s := range t.holds {
		if d, ok := s.Int(string(pl.KeyResourceDevice)); ok {
			t.resDevice[holdOf(s).Resource] = int(max(d, -1))
		}
	}
	return t
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

func span(s *tracefile.Span) interval { return interval{s.Start, s.End} }

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

func partOf(s *tracefile.Span) partKey {
	return partKey{jobOf(s), s.IntOr(string(pl.KeyPartition), -1)}
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

// waitMS is the queued time the runtime recorded on a stage span.
func waitOf(s *tracefile.Span) time.Duration {
	f, _ := s.Float(string(pl.KeyWaitMS))
	return time.Duration(f * float64(time.Millisecond))
}

func stageName(s *tracefile.Span) string {
	if n := s.Str(string(pl.KeyStage)); n != "" {
		return n
	}
	return s.Name
}
