package analyze

import (
	"cmp"
	"slices"
	"strings"
	"time"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// folder builds a trace one span at a time, keeping records, not spans.
type folder struct {
	t    *trace
	opts Options
	// sorted reads the spans as Load returns a file's: sorted by start
	// time, stably. They come in the file's order; the records are sorted
	// at the end, and the first or last span of a kind is chosen by start
	// time. Otherwise the order they come in is theirs.
	sorted bool
	seq    int // spans added
	strs   map[string]string
	lists  map[string][]string
	// start is the trace start, found as the spans come; minStart is the
	// earliest start other than the zero time, which is what that finds
	// when they come sorted.
	start, minStart time.Time
	// firstAt is the start of the span t.resource comes from, and
	// resDevAt that of the lock_hold span each t.resDevice entry does.
	firstAt  time.Time
	resDevAt map[string]time.Time
}

func newFolder(opts Options, sorted bool) *folder {
	opts.defaults()
	return &folder{
		t: &trace{okParts: map[string]int{}, resDevice: map[string]int{},
			timeline: timeline{max: opts.TimelineSpans}},
		opts: opts, sorted: sorted, strs: map[string]string{}, lists: map[string][]string{}, resDevAt: map[string]time.Time{},
	}
}

// intern returns one copy of each string, so records of many spans share
// their names.
func (f *folder) intern(s string) string {
	if v, ok := f.strs[s]; ok {
		return v
	}
	f.strs[s] = s
	return s
}

// list interns a list of lock names.
func (f *folder) list(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	key := strings.Join(l, "\x00")
	if v, ok := f.lists[key]; ok {
		return v
	}
	v := make([]string, len(l))
	for i := range l {
		v[i] = f.intern(l[i])
	}
	f.lists[key] = v
	return v
}

// add folds one span into the trace.
func (f *folder) add(s *tracefile.Span) {
	t := f.t
	f.seq++
	t.spans++
	if f.start.IsZero() || s.Start.Before(f.start) {
		f.start = s.Start
	}
	if !s.Start.IsZero() && (f.minStart.IsZero() || s.Start.Before(f.minStart)) {
		f.minStart = s.Start
	}
	if s.End.After(t.end) {
		t.end = s.End
	}
	if f.seq == 1 || (f.sorted && s.Start.Before(f.firstAt)) {
		t.resource, f.firstAt = s.Resource, s.Start
	}
	kind := s.Str(string(pl.KeyKind))
	switch kind {
	case pl.KindJob:
		f.addJob(s)
	case pl.KindPartition:
		t.parts++
		if s.Status != tracefile.StatusError {
			t.okParts[f.intern(jobOf(s))]++
		}
	case pl.KindStage:
		t.stages = append(t.stages, f.stageRun(s))
	case pl.KindKernel:
		k := kernelRun{Start: s.Start, End: s.End, name: f.intern(s.Str(string(pl.KeyKernel))), device: s.IntOr(string(pl.KeyDevice), -1)}
		if k.name == "" {
			k.name = f.intern(s.Name)
		}
		if ms, ok := s.Float(string(pl.KeyGPUTimeMS)); ok {
			k.gpu = time.Duration(ms * float64(time.Millisecond))
		}
		t.kerns = append(t.kerns, k)
	case pl.KindLockWait:
		t.waits = append(t.waits, lockWait{Start: s.Start, End: s.End, name: f.intern(s.Name), stage: f.intern(s.Str(string(pl.KeyStage))),
			res: f.intern(s.Str(string(pl.KeyResource))), job: f.intern(jobOf(s)), part: s.IntOr(string(pl.KeyPartition), -1)})
	case pl.KindLockHold:
		f.addHold(s)
	default:
		return
	}
	t.timeline.add(s, f.seq, kind)
}

func (f *folder) addJob(s *tracefile.Span) {
	t := f.t
	t.jobs = append(t.jobs, jobRun{Start: s.Start, End: s.End, job: f.intern(jobOf(s)), id: f.intern(s.Str(string(pl.KeyJob))),
		failed: s.Status == tracefile.StatusError})
	if len(t.jobs) == 1 {
		t.jobAttrs = make(map[string]string, len(s.Attrs))
		for k, v := range s.Attrs {
			t.jobAttrs[k] = attrText(v)
		}
		return
	}
	for k, text := range t.jobAttrs {
		if v, ok := s.Attrs[k]; !ok || attrText(v) != text {
			delete(t.jobAttrs, k)
		}
	}
}

func (f *folder) stageRun(s *tracefile.Span) stageRun {
	r := stageRun{Start: s.Start, End: s.End, stage: f.intern(stageName(s)), typ: f.intern(s.Str(string(pl.KeyStageType))),
		job: f.intern(jobOf(s)), locks: f.list(s.Strings(string(pl.KeyLocks))), part: s.IntOr(string(pl.KeyPartition), -1),
		device: s.IntOr(string(pl.KeyDevice), -1), attempt: s.IntOr(string(pl.KeyAttempt), 1), wait: waitOf(s),
		failed: s.Status == tracefile.StatusError, busy: -1}
	if r.failed {
		r.msg = s.StatusMessage
	}
	if v, ok := s.Attrs[string(pl.KeyDeviceBusy)]; ok {
		r.busy = 0
		if b, _ := v.(bool); b {
			r.busy = 1
		}
	}
	return r
}

func (f *folder) addHold(s *tracefile.Span) {
	t := f.t
	h := holdOf(s)
	h.Resource = f.intern(h.Resource)
	t.holds = append(t.holds, h)
	// The last hold that records the resource's device says it.
	if d, ok := s.Int(string(pl.KeyResourceDevice)); ok {
		if at, seen := f.resDevAt[h.Resource]; !seen || !f.sorted || !s.Start.Before(at) {
			t.resDevice[h.Resource] = int(max(d, -1))
			f.resDevAt[h.Resource] = s.Start
		}
	}
}

// finish puts the records in order and returns the trace.
func (f *folder) finish() *trace {
	t := f.t
	t.start = f.start
	if f.sorted {
		t.start = f.minStart
		slices.SortStableFunc(t.jobs, func(a, b jobRun) int { return a.Start.Compare(b.Start) })
		slices.SortStableFunc(t.stages, func(a, b stageRun) int { return a.Start.Compare(b.Start) })
		slices.SortStableFunc(t.kerns, func(a, b kernelRun) int { return a.Start.Compare(b.Start) })
		slices.SortStableFunc(t.waits, func(a, b lockWait) int { return a.Start.Compare(b.Start) })
	}
	t.timeline.finish()
	f.strs, f.lists, f.resDevAt = nil, nil, nil
	return t
}

// byStart returns the stage runs sorted by start.
func byStart(stages []stageRun) []*stageRun {
	out := make([]*stageRun, len(stages))
	for i := range stages {
		out[i] = &stages[i]
	}
	slices.SortStableFunc(out, func(a, b *stageRun) int { return a.Start.Compare(b.Start) })
	return out
}

// overlaps finds the stage runs that overlap each of a series of
// intervals given in time order, in time proportional to the runs and the
// overlaps found, rather than to the runs for each interval.
type overlaps struct {
	runs   []*stageRun // by start
	next   int         // the first run not yet seen
	active []*stageRun // seen runs that may overlap the next interval
}

// during returns the runs that start before g ends and end after it
// starts; g must not start before the previous interval ended.
func (o *overlaps) during(g interval) []*stageRun {
	for o.next < len(o.runs) && o.runs[o.next].Start.Before(g.End) {
		o.active = append(o.active, o.runs[o.next])
		o.next++
	}
	keep := o.active[:0]
	for _, s := range o.active {
		if s.End.After(g.Start) {
			keep = append(keep, s)
		}
	}
	o.active = keep
	return keep
}

// cmpSeq orders timeline entries by start, then by when they came.
func cmpSeq(a, b tlEntry) int {
	if c := a.s.Start.Compare(b.s.Start); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}
