package analyze

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
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
	var slowest *jobRun
	for i := range t.jobs {
		if j := &t.jobs[i]; slowest == nil || j.duration() > slowest.duration() {
			slowest = j
		}
	}
	if slowest == nil {
		return nil
	}
	job := slowest.job
	var runs []*stageRun
	for i := range t.stages {
		if s := &t.stages[i]; s.job == job && !s.Start.Before(slowest.Start) && !s.End.After(slowest.End.Add(slack)) {
			runs = append(runs, s)
		}
	}
	name := slowest.id
	if name == "" {
		name = "trace " + strings.TrimSuffix(job, "/") // jobOf of a span without prooflane.job
	}
	cp := &CriticalPath{Job: name, Duration: slowest.duration()}
	if len(runs) == 0 {
		return cp
	}
	waits := map[partKey][]*lockWait{}
	for i := range t.waits {
		if w := &t.waits[i]; w.job == job {
			waits[w.partOf()] = append(waits[w.partOf()], w)
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
		ready := cur.Start.Add(-cur.wait)
		steps = append(steps, Step{
			Stage: cur.stage, Partition: int(cur.part), Device: int(cur.device), Attempt: int(cur.attempt),
			Offset: cur.Start.Sub(slowest.Start), Wait: cur.wait, Run: cur.dur(),
			WaitedOn: waitedOn(waits[cur.partOf()], cur, ready), Failed: cur.failed,
		})
		var pred *stageRun
		for _, s := range runs {
			if s == cur || s.partOf() != cur.partOf() || s.End.After(ready.Add(slack)) || !s.Start.Before(cur.Start) {
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
func waitedOn(ws []*lockWait, run *stageRun, ready time.Time) []string {
	type w struct {
		name string
		d    time.Duration
	}
	var got []w
	for _, s := range ws {
		if s.stageName() != run.stage || s.Start.Before(ready.Add(-slack)) || s.End.After(run.Start.Add(slack)) {
			continue
		}
		got = append(got, w{s.res, s.dur()})
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].d > got[j].d })
	var out []string
	for _, g := range got {
		out = append(out, g.name+" "+lockstats.Dur(g.d))
	}
	return out
}
