package analyze

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	"github.com/prooflane/prooflane/otel/tracefile"
)

const ms = time.Millisecond

func analyzeFile(t *testing.T, path string, opts Options) *Report {
	t.Helper()
	spans, err := tracefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(spans, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func resource(t *testing.T, r *Report, name string) ResourceStats {
	t.Helper()
	for _, x := range r.Resources {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no resource %q in %+v", name, r.Resources)
	return ResourceStats{}
}

// withoutOldFormat drops the warnings that a trace has no lock_hold spans
// and does not declare which stages keep a device busy.
func withoutOldFormat(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !strings.HasPrefix(w, "the trace has no lock_hold spans") && !strings.HasPrefix(w, "the trace does not say which stages keep a device busy") {
			out = append(out, w)
		}
	}
	return out
}

func TestAnalyzeSmallTraceMatchesHandComputedAnswers(t *testing.T) {
	spans := smallTrace()
	for _, tc := range []struct {
		name string
		path string
	}{
		{"json lines", writeJSONL(t, spans)},
		{"jaeger json", writeJaeger(t, spans)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := analyzeFile(t, tc.path, Options{MinGap: 10 * ms})
			if r.Makespan != 100*ms || r.Jobs != 1 || r.Partitions != 2 {
				t.Errorf("makespan %v jobs %d partitions %d", r.Makespan, r.Jobs, r.Partitions)
			}
			if r.ProofsPerMinute != 1200 || r.JobsPerMinute != 600 {
				t.Errorf("proofs/min = %v, jobs/min = %v; want 1200 and 600 (one job of two partitions in 100 ms)", r.ProofsPerMinute, r.JobsPerMinute)
			}
			if len(r.Devices) != 1 {
				t.Fatalf("devices = %+v", r.Devices)
			}
			d := r.Devices[0]
			if d.Busy != 60*ms || d.BusyPct != 60 || d.Idle != 40*ms {
				t.Errorf("device busy %v (%v%%) idle %v; want 60ms (60%%) idle 40ms", d.Busy, d.BusyPct, d.Idle)
			}
			wantGaps := []Gap{
				{Offset: 0, Duration: 20 * ms, Running: []string{"synthesize 100%"}},
				{Offset: 80 * ms, Duration: 20 * ms, Running: []string{"epilogue 100%"}},
			}
			if !reflect.DeepEqual(d.Gaps, wantGaps) {
				t.Errorf("gaps = %+v\nwant %+v", d.Gaps, wantGaps)
			}
			gc := resource(t, r, "gpu.0.compute")
			if gc.Holds != 2 || gc.Held != 60*ms || gc.Utilization != 0.6 || gc.Waits != 1 ||
				gc.WaitTotal != 20*ms || gc.WaitMax != 20*ms || gc.Contention != 0.5 || gc.Device != 0 {
				t.Errorf("gpu.0.compute = %+v", gc)
			}
			cpu := resource(t, r, "cpu")
			if cpu.Held != 30*ms || cpu.MeanHolders != 50.0/30 || cpu.MaxHolders != 2 || cpu.Waits != 0 || cpu.Device != -1 {
				t.Errorf("cpu = %+v (want held 30ms: [0,20]∪[0,30]; mean holders 50/30 while held)", cpu)
			}
			byName := map[string]StageStats{}
			for _, s := range r.Stages {
				byName[s.Name] = s
			}
			if s := byName["synthesize"]; s.Count != 2 || s.Mean != 25*ms || s.P50 != 20*ms || s.P95 != 30*ms || s.Max != 30*ms {
				t.Errorf("synthesize = %+v", s)
			}
			if s := byName["gpu_compute"]; s.Count != 2 || s.Mean != 30*ms || s.MeanWait != 10*ms {
				t.Errorf("gpu_compute = %+v", s)
			}
			cp := r.Critical
			if cp == nil {
				t.Fatal("no critical path")
			}
			var got []string
			for _, s := range cp.Steps {
				got = append(got, s.Stage)
				if s.Partition != 1 {
					t.Errorf("critical step %+v not in partition 1", s)
				}
			}
			if strings.Join(got, ">") != "synthesize>gpu_compute>epilogue" || cp.Run != 80*ms || cp.Wait != 20*ms || cp.Lead != 0 {
				t.Errorf("critical path %v run %v wait %v lead %v", got, cp.Run, cp.Wait, cp.Lead)
			}
			if w := cp.Steps[1].WaitedOn; len(w) != 1 || w[0] != "gpu.0.compute 20ms" {
				t.Errorf("gpu_compute waited on %q", w)
			}
			// The small trace is in the format before lock_hold spans and
			// prooflane.device_busy: the two warnings say so, and busy
			// time is guessed from the stage name gpu_compute.
			if len(r.Warnings) != 2 || !strings.HasPrefix(r.Warnings[0], "the trace has no lock_hold spans") ||
				!strings.HasPrefix(r.Warnings[1], "the trace does not say which stages keep a device busy") ||
				!strings.HasSuffix(r.Warnings[1], `here stage or stage type "gpu_compute"`) {
				t.Errorf("warnings: %q", r.Warnings)
			}
		})
	}
}

func TestGapsShorterThanThresholdAreNotListed(t *testing.T) {
	r, err := Analyze(smallTrace(), Options{MinGap: 25 * ms})
	if err != nil {
		t.Fatal(err)
	}
	if g := r.Devices[0].Gaps; len(g) != 0 {
		t.Errorf("gaps over 25ms: %+v", g)
	}
}

func TestBusyFallsBackToComputeLockHolders(t *testing.T) {
	b := &builder{spans: make([]tracefile.Span, 0, 16)}
	j := b.job("j", 0, 100, 1)
	p := b.partition(j, 0, 0, 100)
	b.stage(p, "msm", "sim.sleep", 0, 10, 40, 0, "gpu.0.mem", "gpu.0.compute")
	b.stage(p, "copy", "sim.sleep", 0, 40, 90, 0, "gpu.0.mem")
	r, err := Analyze(b.spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Devices[0]; d.Busy != 30*ms || !strings.Contains(r.BusyRule, "gpu.<N>.compute") {
		t.Errorf("busy %v by %q; want 30ms by the compute-lock rule", d.Busy, r.BusyRule)
	}
	r, err = Analyze(b.spans, Options{BusyStage: "copy"})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Devices[0]; d.Busy != 50*ms {
		t.Errorf("--busy-stage copy: busy %v, want 50ms", d.Busy)
	}
}

// twoLockTrace: stage load holds gpu.0.mem, stage compute holds
// gpu.0.compute, two partitions each waiting on both. With overlap, the
// second partition's load runs while the first computes.
func twoLockTrace(overlap bool) []tracefile.Span {
	b := &builder{spans: make([]tracefile.Span, 0, 32)}
	j := b.job("j", 0, 100, 2)
	p0 := b.partition(j, 0, 0, 100)
	p1 := b.partition(j, 1, 0, 100)
	b.stage(p0, "load", "sim.sleep", 0, 0, 20, 0, "gpu.0.mem")
	b.stage(p0, "compute", "sim.sleep", 0, 20, 40, 0, "gpu.0.compute")
	if overlap {
		b.wait(p1, "load", "gpu.0.mem", 0, 20)
		b.stage(p1, "load", "sim.sleep", 0, 20, 40, 20, "gpu.0.mem")
		b.wait(p1, "compute", "gpu.0.compute", 40, 41)
		b.stage(p1, "compute", "sim.sleep", 0, 41, 60, 1, "gpu.0.compute")
	} else {
		b.wait(p1, "load", "gpu.0.mem", 0, 40)
		b.stage(p1, "load", "sim.sleep", 0, 40, 60, 40, "gpu.0.mem")
		b.wait(p1, "compute", "gpu.0.compute", 60, 61)
		b.stage(p1, "compute", "sim.sleep", 0, 61, 80, 1, "gpu.0.compute")
		// p0's next stage waits on compute while mem is free: the
		// two locks are handed over, never held together.
		b.wait(p0, "compute", "gpu.0.compute", 40, 41)
	}
	return b.spans
}

func TestWarnsWhenIndependentLocksNeverOverlap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		overlap bool
		warn    bool
	}{
		{"serialized", false, true},
		{"overlapping", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Analyze(twoLockTrace(tc.overlap), Options{})
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, w := range r.Warnings {
				if strings.Contains(w, `"gpu.0.compute" and "gpu.0.mem" are separate locks`) {
					warned = true
				}
			}
			if warned != tc.warn {
				t.Errorf("warned = %v, want %v; warnings %q", warned, tc.warn, r.Warnings)
			}
		})
	}
}

func TestFailedStageIsWarnedAndCounted(t *testing.T) {
	spans := smallTrace()
	for i := range spans {
		if spans[i].Name == "epilogue" && spans[i].Attrs["prooflane.partition"] == int64(1) {
			spans[i].Status, spans[i].StatusMessage = tracefile.StatusError, "boom"
		}
	}
	r, err := Analyze(spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Stages {
		if s.Name == "epilogue" && s.Errors != 1 {
			t.Errorf("epilogue errors = %d", s.Errors)
		}
	}
	if w := withoutOldFormat(r.Warnings); len(w) != 1 || !strings.Contains(w[0], `stage "epilogue" partition 1 attempt 1: boom`) {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

func TestAnalyzeRejectsTraceWithoutProoflaneSpans(t *testing.T) {
	_, err := Analyze([]tracefile.Span{{SpanID: "1", Name: "GET /", Start: t0, End: t0.Add(ms)}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "no prooflane job or stage spans") {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteTextShowsEverySection(t *testing.T) {
	r, err := Analyze(smallTrace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"1200.00 proofs/min (partitions), 600.00 jobs/min", "gpu_compute", "gpu.0.compute", "device 0: busy 60.0%",
		"idle 20ms at +80ms while running: epilogue 100%", `critical path of the slowest job "j1"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJobsOfSeparateRunsWithTheSameIDStayApart(t *testing.T) {
	// Two runs each named their job "job-1" and overlap in time. Run 1's
	// synthesis ends just before run 0's compute starts: joined by id it
	// would pass for run 0's predecessor.
	b := &builder{spans: make([]tracefile.Span, 0, 16)}
	for run, times := range [][4]float64{{0, 100, 39, 40}, {1, 90, 39.5, 39.5}} {
		start, end, synthEnd, computeStart := times[0], times[1], times[2], times[3]
		j := b.job("job-1", start, end, 1)
		j.TraceID = fmt.Sprintf("run-%d", run)
		p := b.partition(j, 0, start, end)
		b.stage(p, "synthesize", "groth16.synthesize", -1, start, synthEnd, 0)
		b.stage(p, "gpu_compute", "groth16.gpu_compute", 0, computeStart, end, 0)
	}
	r, err := Analyze(b.spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cp := r.Critical
	if cp == nil || cp.Job != "job-1" || len(cp.Steps) != 2 || cp.Steps[0].Offset != 0 || cp.Run != 99*ms {
		t.Errorf("critical path %+v: want run 0's synthesize [0,39] and gpu_compute [40,100]", cp)
	}
}

func TestKernelSpansAreSummarisedAndCountedPerDevice(t *testing.T) {
	spans := smallTrace()
	b := &builder{spans: spans, n: 100}
	for i := range spans {
		s := &spans[i]
		if s.Name != "gpu_compute" {
			continue
		}
		// Two kernels in each 30 ms gpu_compute run: msm 10 ms, ntt 5 ms.
		from := float64(s.Start.Sub(t0)) / float64(ms)
		for _, k := range []struct {
			name       string
			start, end float64
		}{{"msm_a", from, from + 10}, {"ntt_h", from + 10, from + 15}} {
			b.add(s, k.name, k.start, k.end, map[string]any{"prooflane.kind": "kernel", "prooflane.kernel": k.name,
				"prooflane.device": int64(0), "prooflane.gpu_time_ms": k.end - k.start - 1})
		}
	}
	r, err := Analyze(b.spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []KernelStats{
		{Name: "msm_a", Count: 2, Mean: 10 * ms, P95: 10 * ms, Max: 10 * ms, Total: 20 * ms, GPUTime: 18 * ms},
		{Name: "ntt_h", Count: 2, Mean: 5 * ms, P95: 5 * ms, Max: 5 * ms, Total: 10 * ms, GPUTime: 8 * ms},
	}
	if !reflect.DeepEqual(r.Kernels, want) {
		t.Errorf("kernels = %+v\nwant %+v", r.Kernels, want)
	}
	if d := r.Devices[0]; d.KernelPct != 30 || d.BusyPct != 60 {
		t.Errorf("device: kernels %v%%, busy %v%%; want 30%% (2×15 of 100 ms) and 60%%", d.KernelPct, d.BusyPct)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if r.KernelGPUTime() != 26*ms || !strings.Contains(text.String(), fmt.Sprintf("device time: %s a partition (the kernels' gpu time, 26ms over %d partitions;", lockstats.Dur(26*ms/time.Duration(r.Partitions)), r.Partitions)) {
		t.Errorf("kernels' gpu time %v (want 26ms), text:\n%s", r.KernelGPUTime(), text.String())
	}
}

// A trace with stage spans but no job span (a run cut off before its job
// ended) says so instead of reporting "0 jobs" silently.
func TestTraceWithoutAJobSpanIsWarned(t *testing.T) {
	var spans []tracefile.Span
	for _, s := range smallTrace() {
		if s.Str("prooflane.kind") != "job" {
			spans = append(spans, s)
		}
	}
	r, err := Analyze(spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.HasPrefix(w, "the trace has no job span")
	}
	if r.Jobs != 0 || !found {
		t.Errorf("jobs %d, warnings %q; want 0 and one saying the trace has no job span", r.Jobs, r.Warnings)
	}
	full, err := Analyze(smallTrace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range full.Warnings {
		if strings.HasPrefix(w, "the trace has no job span") {
			t.Errorf("a trace with its job span warned: %q", w)
		}
	}
}
