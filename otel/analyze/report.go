package analyze

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// Options tune Analyze.
type Options struct {
	// BusyStage, when set, overrides what the trace declares: the stage
	// spans whose stage name equals it, or whose stage type equals it or
	// ends with "."+BusyStage, keep their device busy. Empty (the default)
	// takes the trace's word: the stage spans the runtime marked
	// prooflane.device_busy=true because their stage type or config says
	// so. A trace written before that attribute existed falls back, with
	// a warning, to the old guesses: stage "gpu_compute", then spans
	// holding a gpu.<N>.compute lock, then any gpu.<N>.* lock.
	BusyStage string
	// MinGap is the shortest idle gap of a device that is listed; default
	// 10ms.
	MinGap time.Duration
	// TimelineSpans bounds the spans kept for WriteHTML and WritePerfetto
	// (see Report.Timeline); 0 means DefaultTimelineSpans, and a negative
	// number keeps none, for a report read as text or JSON only. The
	// figures always cover every span.
	TimelineSpans int
}

// legacyBusyStage is the stage name old traces' busy time is guessed from.
const legacyBusyStage = "gpu_compute"

func (o *Options) defaults() {
	if o.MinGap == 0 {
		o.MinGap = 10 * time.Millisecond
	}
	if o.TimelineSpans == 0 {
		o.TimelineSpans = DefaultTimelineSpans
	}
}

// Report is what Analyze finds.
type Report struct {
	Start, End time.Time
	Makespan   time.Duration
	Spans      int
	Jobs       int // job spans
	JobsFailed int
	Partitions int
	// ProofsPerMinute counts the partitions of successful jobs (each
	// partition is one proof, as `prooflane prove` writes them) and
	// JobsPerMinute the successful jobs, over the time from the first
	// job's start to the last job's end.
	ProofsPerMinute float64
	JobsPerMinute   float64
	Stages          []StageStats
	// Kernels summarises kernel spans (device operations inside stages),
	// by kernel name; empty when the stages emit none.
	Kernels   []KernelStats
	Resources []ResourceStats
	// BusyRule says which spans counted as device busy.
	BusyRule string
	Devices  []DeviceStats
	// Critical is the critical path of the slowest job; nil without job
	// spans.
	Critical *CriticalPath
	Warnings []string

	t     *trace
	holds []lockstats.Hold
	busy  map[int][]interval // merged busy intervals by device
	opts  Options
}

// KernelGPUTime is the kernels' gpu time in all (KernelStats.GPUTime
// summed): the device time of the trace's device operations, where those
// of streams that ran at once each count.
func (r *Report) KernelGPUTime() time.Duration {
	var d time.Duration
	for _, k := range r.Kernels {
		d += k.GPUTime
	}
	return d
}

// StageStats summarises the runs of one stage.
type StageStats struct {
	Name, Type                 string
	Count, Errors              int
	Mean, P50, P95, Max, Total time.Duration
	MeanWait                   time.Duration // queued for workers and locks
}

// ResourceStats summarises one resource (lock or worker pool): the
// figures of package lockstats, from the trace's lock_hold spans.
type ResourceStats struct {
	Name string // = Resource
	lockstats.Stats
	Device int // the device it belongs to (prooflane.resource_device), -1 for the machine's

	held []interval // union of the hold intervals
}

// DeviceStats says how busy one device was.
type DeviceStats struct {
	Device  int
	Busy    time.Duration
	BusyPct float64
	Idle    time.Duration
	// KernelPct is the union of the device's kernel spans over the
	// makespan: how much of the busy time the device computed. 0 without
	// kernel spans.
	KernelPct float64
	// Gaps are the idle stretches longer than Options.MinGap, in time
	// order, including one before the first and after the last busy span.
	Gaps []Gap
}

// Gap is an idle stretch of a device.
type Gap struct {
	Offset   time.Duration // from the trace start
	Duration time.Duration
	// Running names the stages that ran during the gap, with the share of
	// the gap each covered, busiest first (at most three).
	Running []string
}

// Analyze computes the report of a trace's spans, taken in the order
// given (Load sorts a file's by start time). It fails only when the trace
// has no prooflane spans.
func Analyze(spans []tracefile.Span, opts Options) (*Report, error) {
	f := newFolder(opts, false)
	for i := range spans {
		f.add(&spans[i])
	}
	return f.report()
}

// AnalyzeFile computes the report of the trace file at path, as Analyze
// does of the spans tracefile.Load returns, with Load's warnings (a torn
// last line) first. It reads the file span by span (tracefile.Scan) and
// keeps a record of some 100 to 200 bytes per span, not the span, plus the
// spans of the timeline (Options.TimelineSpans).
func AnalyzeFile(path string, opts Options) (*Report, error) {
	f := newFolder(opts, true)
	warnings, err := tracefile.Scan(path, func(s *tracefile.Span) error {
		f.add(s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	r, err := f.report()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.Warnings = append(warnings, r.Warnings...)
	return r, nil
}

func (f *folder) report() (*Report, error) {
	t, opts := f.finish(), f.opts
	if len(t.stages) == 0 && len(t.jobs) == 0 {
		return nil, errors.New("trace has no prooflane job or stage spans (no prooflane.kind attribute)")
	}
	r := &Report{Start: t.start, End: t.end, Makespan: t.end.Sub(t.start), Spans: t.spans, Partitions: t.parts, t: t, opts: opts}
	r.jobs(t)
	r.stageStats(t)
	r.kernelStats(t)
	if err := r.resourceStats(t); err != nil {
		return nil, err
	}
	r.deviceStats(t, opts)
	r.Critical = criticalPath(t)
	r.warnings(t)
	return r, nil
}

func (r *Report) jobs(t *trace) {
	r.Jobs = len(t.jobs)
	var first, last time.Time
	ok, proofs := 0, 0
	okJob := map[string]bool{}
	for i := range t.jobs {
		j := &t.jobs[i]
		if j.failed {
			r.JobsFailed++
			continue
		}
		ok++
		okJob[j.job] = true
		if first.IsZero() || j.Start.Before(first) {
			first = j.Start
		}
		if j.End.After(last) {
			last = j.End
		}
	}
	for job := range okJob {
		proofs += t.okParts[job]
	}
	if ok > 0 && last.After(first) {
		r.JobsPerMinute = float64(ok) / last.Sub(first).Minutes()
		r.ProofsPerMinute = float64(proofs) / last.Sub(first).Minutes()
	}
}

func (r *Report) stageStats(t *trace) {
	byName := map[string]*StageStats{}
	durs := map[string][]time.Duration{}
	waits := map[string]time.Duration{}
	var order []string
	for i := range t.stages {
		s := &t.stages[i]
		n := s.stage
		st := byName[n]
		if st == nil {
			st = &StageStats{Name: n, Type: s.typ}
			byName[n] = st
			order = append(order, n)
		}
		st.Count++
		if s.failed {
			st.Errors++
		}
		durs[n] = append(durs[n], s.dur())
		waits[n] += s.wait
	}
	for _, n := range order { // first start order: roughly the pipeline's order
		st := byName[n]
		d := durs[n]
		slices.Sort(d)
		for _, x := range d {
			st.Total += x
		}
		st.Mean = st.Total / time.Duration(len(d))
		st.P50, st.P95, st.Max = percentile(d, 50), percentile(d, 95), d[len(d)-1]
		st.MeanWait = waits[n] / time.Duration(len(d))
		r.Stages = append(r.Stages, *st)
	}
}

// KernelStats summarises the runs of one kernel.
type KernelStats struct {
	Name                  string
	Count                 int
	Mean, P95, Max, Total time.Duration
	// GPUTime is the sum of prooflane.gpu_time_ms: device-timed, where
	// the span measures the host's view.
	GPUTime time.Duration
}

func (r *Report) kernelStats(t *trace) {
	durs := map[string][]time.Duration{}
	gpu := map[string]time.Duration{}
	var order []string
	for i := range t.kerns {
		k := &t.kerns[i]
		if durs[k.name] == nil {
			order = append(order, k.name)
		}
		durs[k.name] = append(durs[k.name], k.End.Sub(k.Start))
		gpu[k.name] += k.gpu
	}
	for _, n := range order {
		d := durs[n]
		slices.Sort(d)
		k := KernelStats{Name: n, Count: len(d), P95: percentile(d, 95), Max: d[len(d)-1], GPUTime: gpu[n]}
		for _, x := range d {
			k.Total += x
		}
		k.Mean = k.Total / time.Duration(len(d))
		r.Kernels = append(r.Kernels, k)
	}
}

// kernelsOn returns the intervals of device d's kernel spans.
func kernelsOn(t *trace, d int) []interval {
	var out []interval
	for i := range t.kerns {
		if k := &t.kerns[i]; int(k.device) == d {
			out = append(out, k.iv())
		}
	}
	return out
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

func (r *Report) resourceStats(t *trace) error {
	var holds []lockstats.Hold
	if len(t.holds) > 0 {
		holds = t.holds
	} else if len(t.stages) > 0 {
		holds = stageHolds(t)
		r.Warnings = append(r.Warnings, "the trace has no lock_hold spans (written before prooflane recorded lock grants and releases): "+
			"a lock counts as held only while a stage listing it ran, so a lock held through a span of stages is missed between them")
	}
	stats, err := lockstats.Compute(holds, r.Makespan)
	if err != nil {
		return err
	}
	r.holds = holds
	ivs := map[string][]interval{}
	for _, h := range holds {
		ivs[h.Resource] = append(ivs[h.Resource], interval{h.Granted, h.Released})
	}
	for _, st := range stats {
		r.Resources = append(r.Resources, ResourceStats{Name: st.Resource, Stats: st, Device: t.deviceOf(st.Resource), held: union(ivs[st.Resource])})
	}
	return nil
}

// stageHolds approximates holds in a trace without lock_hold spans: each
// stage run holds the locks it lists for its run, and a worker pool that
// was waited for is held by its stage's runs. A lock_wait span is the wait
// of the first run after it of the same stage, partition and resource.
func stageHolds(t *trace) []lockstats.Hold {
	type key struct {
		part  partKey
		stage string
		res   string
	}
	waits := map[key][]*lockWait{}
	pools := map[string]bool{}
	for i := range t.waits {
		w := &t.waits[i]
		name := w.resource()
		if strings.HasPrefix(name, "workers.") {
			pools[name] = true
		}
		k := key{w.partOf(), w.stage, name}
		waits[k] = append(waits[k], w) // t.waits is in start order
	}
	var holds []lockstats.Hold
	add := func(s *stageRun, res string) {
		h := lockstats.Hold{Resource: res, Weight: 1, Granted: s.Start, Released: s.End}
		k := key{s.partOf(), s.stage, res}
		if ws := waits[k]; len(ws) > 0 && !ws[0].End.After(s.Start.Add(slack)) {
			h.Wait = ws[0].dur()
			waits[k] = ws[1:]
		}
		holds = append(holds, h)
	}
	for i := range t.stages {
		s := &t.stages[i]
		for _, l := range s.locks {
			add(s, l)
		}
		n := "workers." + s.stage
		if d := s.device; d >= 0 && pools[fmt.Sprintf("%s.%d", n, d)] {
			n = fmt.Sprintf("%s.%d", n, d)
		}
		if pools[n] {
			add(s, n)
		}
	}
	return holds
}

// busySpans returns the intervals that kept each device busy, the rule
// that chose them, and a warning when the rule is a guess or found none.
func busySpans(t *trace, opts Options) (map[int][]interval, string, string) {
	byStage := func(name string) func(s *stageRun) bool {
		return func(s *stageRun) bool {
			return s.stage == name || s.typ == name || strings.HasSuffix(s.typ, "."+name)
		}
	}
	collect := func(match func(s *stageRun) bool) map[int][]interval {
		out := map[int][]interval{}
		for i := range t.stages {
			if s := &t.stages[i]; match(s) {
				for _, d := range devicesOf(s) {
					out[d] = append(out[d], s.iv())
				}
			}
		}
		return out
	}
	if opts.BusyStage != "" {
		rule := fmt.Sprintf("stage or stage type %q (chosen by name)", opts.BusyStage)
		out := collect(byStage(opts.BusyStage))
		if len(out) == 0 {
			return nil, rule, fmt.Sprintf("no stage run on a device has stage name or type %q: every device shows 0%% busy", opts.BusyStage)
		}
		return out, rule, ""
	}
	if declaresBusy(t) {
		const rule = "stage runs declared to keep their device busy (prooflane.device_busy)"
		out := map[int][]interval{}
		for i := range t.stages {
			if s := &t.stages[i]; s.busy == 1 && s.device >= 0 {
				out[int(s.device)] = append(out[int(s.device)], s.iv())
			}
		}
		if len(out) == 0 && onDevices(t) {
			return nil, rule, "no stage run declares that it keeps its device busy (prooflane.device_busy): every device shows 0% busy; " +
				"a stage type declares it (stages.Factory.Busy; in a sim pipeline, config busy: true), or name the busy stage with --busy-stage"
		}
		return out, rule, ""
	}
	// A trace from before prooflane.device_busy: guess from names.
	holds := func(pred func(string) bool) func(s *stageRun) bool {
		return func(s *stageRun) bool { return slices.ContainsFunc(s.locks, pred) }
	}
	rules := []struct {
		desc  string
		match func(s *stageRun) bool
	}{
		{fmt.Sprintf("stage or stage type %q", legacyBusyStage), byStage(legacyBusyStage)},
		{"stages holding gpu.<N>.compute", holds(func(l string) bool {
			return deviceOfResource(l) >= 0 && strings.HasSuffix(l, ".compute")
		})},
		{"stages holding a gpu.<N>.* lock", holds(func(l string) bool { return deviceOfResource(l) >= 0 })},
	}
	const guessed = "the trace does not say which stages keep a device busy (written before prooflane recorded prooflane.device_busy): " +
		"busy time is guessed from stage and lock names, "
	for _, ru := range rules {
		if out := collect(ru.match); len(out) > 0 {
			return out, ru.desc + " (guessed: an older trace)", guessed + "here " + ru.desc
		}
	}
	if !onDevices(t) {
		return nil, "no stage ran on a device", ""
	}
	desc := "no stage span matched " + rules[0].desc + " or held a gpu.<N>.* lock"
	return nil, desc, guessed + "and " + desc
}

// declaresBusy reports whether the trace's stage spans carry
// prooflane.device_busy (a trace from a runtime that records it).
func declaresBusy(t *trace) bool {
	return slices.ContainsFunc(t.stages, func(s stageRun) bool { return s.busy >= 0 })
}

// onDevices reports whether any stage ran on a device.
func onDevices(t *trace) bool {
	return slices.ContainsFunc(t.stages, func(s stageRun) bool { return s.device >= 0 })
}

// devicesOf is the run's prooflane.device, or the devices of the gpu
// locks it holds.
func devicesOf(s *stageRun) []int {
	if s.device >= 0 {
		return []int{int(s.device)}
	}
	var out []int
	for _, l := range s.locks {
		if d := deviceOfResource(l); d >= 0 && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func (r *Report) deviceStats(t *trace, opts Options) {
	busy, rule, warning := busySpans(t, opts)
	r.BusyRule = rule
	if warning != "" {
		r.Warnings = append(r.Warnings, warning)
	}
	r.busy = map[int][]interval{}
	devs := map[int]bool{}
	for d := range busy {
		devs[d] = true
	}
	for i := range t.stages {
		if d := t.stages[i].device; d >= 0 {
			devs[int(d)] = true
		}
	}
	ids := make([]int, 0, len(devs))
	for d := range devs {
		ids = append(ids, d)
	}
	slices.Sort(ids)
	runs := byStart(t.stages)
	for _, d := range ids {
		u := union(busy[d])
		r.busy[d] = u
		ds := DeviceStats{Device: d, Busy: total(u)}
		ds.Idle = r.Makespan - ds.Busy
		if k := kernelsOn(t, d); len(k) > 0 && r.Makespan > 0 {
			ds.KernelPct = 100 * float64(total(union(k))) / float64(r.Makespan)
		}
		if r.Makespan > 0 {
			ds.BusyPct = 100 * float64(ds.Busy) / float64(r.Makespan)
		}
		during := &overlaps{runs: runs}
		for _, g := range complement(u, t.start, t.end) {
			if g.dur() > opts.MinGap {
				ds.Gaps = append(ds.Gaps, Gap{Offset: g.Start.Sub(t.start), Duration: g.dur(), Running: running(during.during(g), g, d)})
			}
		}
		r.Devices = append(r.Devices, ds)
	}
}

// running names the stage runs active during device dev's idle gap g
// (runs holds every run that may overlap it), with their share of it;
// runs on another device are marked with it.
func running(runs []*stageRun, g interval, dev int) []string {
	cover := map[string][]interval{}
	for _, s := range runs {
		if iv := intersect([]interval{s.iv()}, []interval{g}); len(iv) > 0 {
			n := s.stage
			if d := int(s.device); d >= 0 && d != dev {
				n += fmt.Sprintf(" (gpu %d)", d)
			}
			cover[n] = append(cover[n], iv[0])
		}
	}
	type share struct {
		name string
		d    time.Duration
	}
	var shares []share
	for n, ivs := range cover {
		shares = append(shares, share{n, total(union(ivs))})
	}
	sort.Slice(shares, func(i, j int) bool {
		if shares[i].d != shares[j].d {
			return shares[i].d > shares[j].d
		}
		return shares[i].name < shares[j].name
	})
	var out []string
	for _, s := range shares {
		pct := 100 * float64(s.d) / float64(g.dur())
		if len(out) == 3 || pct < 0.5 {
			break
		}
		out = append(out, fmt.Sprintf("%s %.0f%%", s.name, pct))
	}
	return out
}

func (r *Report) warnings(t *trace) {
	if len(t.jobs) == 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the trace has no job span (was the run cut off before its job ended?): "+
			"%d partition(s) and %d stage run(s) are analysed, but there is no job count, throughput or critical path", t.parts, len(t.stages)))
	}
	// Hidden serialization: two resources of one device, both waited
	// for, never held at the same time.
	for i := range r.Resources {
		a := &r.Resources[i]
		for j := i + 1; j < len(r.Resources); j++ {
			b := &r.Resources[j]
			if a.Device < 0 || a.Device != b.Device || a.Waits == 0 || b.Waits == 0 ||
				a.WaitTotal <= 0 || b.WaitTotal <= 0 || len(a.held) == 0 || len(b.held) == 0 {
				continue
			}
			if total(intersect(a.held, b.held)) > 0 {
				continue
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"device %d: %q and %q are separate locks, both contended (%s and %s waited), but never held at the same time: "+
					"they serialize each other; merge them into one lock or check the lock spans and stage order",
				a.Device, a.Name, b.Name, lockstats.Dur(a.WaitTotal), lockstats.Dur(b.WaitTotal)))
		}
	}
	var failed []*stageRun
	for i := range t.stages {
		if s := &t.stages[i]; s.failed {
			failed = append(failed, s)
		}
	}
	if len(failed) > 0 {
		f := failed[0]
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d stage run(s) failed; first: stage %q partition %d attempt %d: %s",
			len(failed), f.stage, f.part, f.attempt, f.msg))
	}
}
