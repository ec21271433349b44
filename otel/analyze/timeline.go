package analyze

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// DefaultTimelineSpans is how many spans a report keeps for its timeline
// when Options.TimelineSpans is 0. The timeline keeps spans whole, a few
// KB each with their attributes; an SVG of many more bars than this is
// more than a browser draws smoothly.
const DefaultTimelineSpans = 50_000

// timeline keeps the spans WriteHTML and WritePerfetto draw: the job,
// partition, stage, kernel, lock_wait and lock_hold spans, whole (a bar's
// tooltip and a Perfetto event's args list every attribute). Past its
// bound it keeps those that start first, and draws the stretch of the
// trace before the first span it left out: every span that starts there.
type timeline struct {
	max     int
	kept    tlHeap
	total   int       // spans it was given
	dropped int       // of those, left out
	cut     time.Time // the earliest start of a span left out
	// After finish, the spans kept, by kind.
	jobs, parts, stages, kerns, waits, holds []*tracefile.Span
}

// tlEntry is a span kept, with when it came and its kind.
type tlEntry struct {
	s    *tracefile.Span
	seq  int
	kind string
}

// tlHeap is a max-heap of entries by start, then by when they came: its
// top is the one to leave out first.
type tlHeap []tlEntry

func (h tlHeap) Len() int           { return len(h) }
func (h tlHeap) Less(i, j int) bool { return cmpSeq(h[i], h[j]) > 0 }
func (h tlHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *tlHeap) Push(x any)        { *h = append(*h, x.(tlEntry)) }
func (h *tlHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (tl *timeline) add(s *tracefile.Span, seq int, kind string) {
	tl.total++
	e := tlEntry{s, seq, kind}
	if len(tl.kept) < tl.max {
		heap.Push(&tl.kept, e)
		return
	}
	if len(tl.kept) > 0 && cmpSeq(e, tl.kept[0]) < 0 {
		e, tl.kept[0] = tl.kept[0], e
		heap.Fix(&tl.kept, 0)
	}
	if tl.dropped == 0 || e.s.Start.Before(tl.cut) {
		tl.cut = e.s.Start
	}
	tl.dropped++
}

// finish sorts the spans kept by kind, in the order they came (tracks
// sorts each track's by start).
func (tl *timeline) finish() {
	kept := []tlEntry(tl.kept)
	tl.kept = nil
	if tl.dropped > 0 { // a span starting with the first left out is left out too
		kept = slices.DeleteFunc(kept, func(e tlEntry) bool { return !e.s.Start.Before(tl.cut) })
		tl.dropped = tl.total - len(kept)
	}
	slices.SortFunc(kept, func(a, b tlEntry) int { return a.seq - b.seq })
	for _, e := range kept {
		switch e.kind {
		case pl.KindJob:
			tl.jobs = append(tl.jobs, e.s)
		case pl.KindPartition:
			tl.parts = append(tl.parts, e.s)
		case pl.KindStage:
			tl.stages = append(tl.stages, e.s)
		case pl.KindKernel:
			tl.kerns = append(tl.kerns, e.s)
		case pl.KindLockWait:
			tl.waits = append(tl.waits, e.s)
		case pl.KindLockHold:
			tl.holds = append(tl.holds, e.s)
		}
	}
}

// Timeline says what WriteHTML and WritePerfetto draw of the trace.
type Timeline struct {
	// Shown of the Total job, partition, stage, kernel, lock_wait and
	// lock_hold spans are drawn (Options.TimelineSpans bounds them).
	Shown, Total int
	// Window is, when not every span is drawn, the stretch from the
	// trace's start that is drawn whole: every span that starts in it.
	Window time.Duration
}

// Timeline says what WriteHTML and WritePerfetto draw.
func (r *Report) Timeline() Timeline {
	tl := &r.t.timeline
	out := Timeline{Shown: tl.total - tl.dropped, Total: tl.total}
	if tl.dropped > 0 {
		out.Window = max(0, tl.cut.Sub(r.Start))
	}
	return out
}

// Partial reports whether the timeline leaves spans out.
func (tl Timeline) Partial() bool { return tl.Shown < tl.Total }

// note says what a partial timeline shows; "" for a whole one.
func (r *Report) timelineNote() string {
	tl := r.Timeline()
	if !tl.Partial() {
		return ""
	}
	return fmt.Sprintf("the timeline shows the first %s of the trace's %s: the %d spans that start in it, of %d (the tables cover them all)",
		lockstats.Dur(tl.Window), lockstats.Dur(r.Makespan), tl.Shown, tl.Total)
}

// window is the stretch a timeline draws: the trace, or the start of it a
// partial timeline shows.
func (r *Report) window() (end time.Time, partial bool) {
	if tl := r.Timeline(); tl.Partial() {
		return r.Start.Add(tl.Window), true
	}
	return r.End, false
}
