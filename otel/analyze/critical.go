package analyze

import (
	"slices"
	"sort"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// CriticalPath is the chain of stage runs that ended the slowest job: from
// its last-ending stage, each step's predecessor is the stage of the same
// partition that ended last before the step was queued.
type CriticalPath struct {
	Job      string
	Duration time.Duration // the job span
	// Lead is the time from the job's start to the first step's queueing.
	Lead  time.Duration
	Steps []Step
	// Run and Wait sum the steps' run and wait times; Duration - Lead -
	// Run - Wait is scheduling slack between steps.
	Run, Wait time.Duration
}

// Step is one stage run on the critical path.
type Step struct {
	Stage     string
	Partition int
	Device    int
	Attempt   int
	Offset    time.Duration // start of the run, from the job start
	Wait      time.Duration // queued for workers and locks
	Run       time.Duration
	// WaitedOn lists the resources it queued for, longest wait first.
	WaitedOn []string
	Failed   bool
}

// slack tolerates clock rounding between a stage's end and its
// successor's queueing (Jaeger stores microseconds).
const slack = time.Millisecond

func criticalPath(t *trace) *CriticalPath {
	var slowest *tracefile.Span
	for _, j := range t.jobs {
		if slowest == nil || j.Duration() > slowest.Duration() {
			slowest = j
		}
	}
	if slowest == nil {
		return nil
	}
	job := jobOf(slowest)
	var runs []*tracefile.Span
	for _, s := range t.stages {
		if jobOf(s) == job && !s.Start.Before(slowest.Start) && !s.End.After(slowest.End.Add(slack)) {
			runs = append(runs, s)
		}
	}
	name := slowest.Str(string(pl.KeyJob))
	if name == "" {
		name = "trace " + slowest.TraceID
	}
	cp := &CriticalPath{Job: name, Duration: slowest.Duration()}
	if len(runs) == 0 {
		return cp
	}
	waits := map[partKey][]*tracefile.Span{}
	for _, w := range t.waits {
		if jobOf(w) == job {
			waits[partOf(w)] = append(waits[partOf(w)], w)
		}
	}
	cur := runs[0]
	for _, s := range runs {
		if s.End.After(cur.End) {
			cur = s
		}
	}
	var steps []Step
	for seen := 0; cur != nil && seen <= len(runs); seen++ {
		ready := cur.Start.Add(-waitOf(cur))
		steps = append(steps, Step{
			Stage: stageName(cur), Partition: int(cur.IntOr(string(pl.KeyPartition), -1)),
			Device: int(cur.IntOr(string(pl.KeyDevice), -1)), Attempt: int(cur.IntOr(string(pl.KeyAttempt), 1)),
			Offset: cur.Start.Sub(slowest.Start), Wait: waitOf(cur), Run: cur.Duration(),
			WaitedOn: waitedOn(waits[partOf(cur)], cur, ready), Failed: cur.Status == tracefile.StatusError,
		})
		var pred *tracefile.Span
		for _, s := range runs {
			if s == cur || partOf(s) != partOf(cur) || s.End.After(ready.Add(slack)) || !s.Start.Before(cur.Start) {
				continue
			}
			if pred == nil || s.End.After(pred.End) {
				pred = s
			}
		}
		if pred == nil {
			cp.Lead = max(0, ready.Sub(slowest.Start))
		}
		cur = pred
	}
	slices.Reverse(steps)
	for _, s := range steps {
		cp.Run += s.Run
		cp.Wait += s.Wait
	}
	cp.Steps = steps
	return cp
}

// waitedOn names the resources a stage run queued for: lock_wait spans of
// its partition and stage inside [ready, run start].
func waitedOn(ws []*tracefile.Span, run *tracefile.Span, ready time.Time) []string {
	type w struct {
		name string
		d    time.Duration
	}
	var got []w
	for _, s := range ws {
		if stageName(s) != stageName(run) || s.Start.Before(ready.Add(-slack)) || s.End.After(run.Start.Add(slack)) {
			continue
		}
		got = append(got, w{s.Str(string(pl.KeyResource)), s.Duration()})
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].d > got[j].d })
	var out []string
	for _, g := range got {
		out = append(out, g.name+" "+lockstats.Dur(g.d))
	}
	return out
}
