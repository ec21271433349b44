package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/tracegen"
)

// checkAgainstSchedule compares a report of a tracegen trace with the
// figures its schedule gives, computed apart from the report: counts,
// stage percentiles (nearest rank over the schedule's durations), lock
// holds and waits, each device's busy time, kernels, throughput.
func checkAgainstSchedule(t *testing.T, r *Report, truth *tracegen.Truth) {
	t.Helper()
	if r.Spans != truth.Spans || r.Jobs != truth.Jobs || r.JobsFailed != 0 || r.Partitions != truth.Partitions ||
		!r.Start.Equal(truth.Start) || !r.End.Equal(truth.End) {
		t.Errorf("%d spans, %d jobs (%d failed), %d partitions, %v to %v; the schedule has %d, %d, %d, %v to %v",
			r.Spans, r.Jobs, r.JobsFailed, r.Partitions, r.Start, r.End, truth.Spans, truth.Jobs, truth.Partitions, truth.Start, truth.End)
	}
	if want := float64(truth.Partitions) / truth.End.Sub(truth.Start).Minutes(); r.ProofsPerMinute != want {
		t.Errorf("%v proofs/min, want %v", r.ProofsPerMinute, want)
	}
	nearest := func(sorted []time.Duration, p float64) time.Duration {
		return sorted[max(1, int(math.Ceil(p*float64(len(sorted))/100)))-1]
	}
	errors := 0
	for _, s := range r.Stages {
		want := truth.Stages[s.Name]
		if want == nil {
			t.Errorf("stage %q is not in the schedule", s.Name)
			continue
		}
		d := slices.Sorted(slices.Values(want.Durations))
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		n := time.Duration(len(d))
		if s.Type != want.Type || s.Count != len(d) || s.Errors != want.Errors || s.Mean != sum/n || s.Max != d[len(d)-1] ||
			s.P50 != nearest(d, 50) || s.P95 != nearest(d, 95) || s.MeanWait != want.Wait/n {
			t.Errorf("stage %+v; the schedule has %d runs (%d failed), mean %v, p50 %v, p95 %v, max %v, mean wait %v",
				s, len(d), want.Errors, sum/n, nearest(d, 50), nearest(d, 95), d[len(d)-1], want.Wait/n)
		}
		errors += want.Errors
	}
	if len(r.Stages) != len(truth.Stages) {
		t.Errorf("%d stages, the schedule has %d", len(r.Stages), len(truth.Stages))
	}
	for _, x := range r.Resources {
		want := truth.Resources[x.Name]
		if want == nil || x.Holds != want.Holds || x.Waits != want.Waits || x.WaitTotal != want.WaitTotal || x.WaitMax != want.WaitMax ||
			x.Capacity != want.Capacity || x.Device != want.Device || (want.Capacity == 1 && x.Held != want.HoldTotal) {
			t.Errorf("resource %+v; the schedule has %+v", x, want)
		}
	}
	if len(r.Resources) != len(truth.Resources) || len(r.Devices) != len(truth.Busy) {
		t.Errorf("%d resources, %d devices; the schedule has %d and %d", len(r.Resources), len(r.Devices), len(truth.Resources), len(truth.Busy))
	}
	for _, d := range r.Devices {
		if d.Busy != truth.Busy[d.Device] {
			t.Errorf("device %d busy %v; the schedule has %v", d.Device, d.Busy, truth.Busy[d.Device])
		}
	}
	for _, k := range r.Kernels {
		want := truth.Kernels[k.Name]
		if want == nil || k.Count != want.Count || k.Total != want.Total || k.GPUTime != want.GPUTime {
			t.Errorf("kernel %+v; the schedule has %+v", k, want)
		}
	}
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], fmt.Sprintf("%d stage run(s) failed; first: stage \"vram_stage\"", errors)) {
		t.Errorf("warnings %q; want one for the %d failed uploads", r.Warnings, errors)
	}
}

// The report of a generated trace of 20,000 spans, read span by span,
// holds the figures its schedule gives.
func TestReportOfAGeneratedTraceMatchesItsSchedule(t *testing.T) {
	path, truth := generated(t, 20_000)
	r, err := AnalyzeFile(path, Options{TimelineSpans: -1})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstSchedule(t, r, truth)
	if tl := r.Timeline(); tl.Shown != 0 || tl.Total != truth.Spans {
		t.Errorf("timeline %+v with TimelineSpans -1; want none of %d spans", tl, truth.Spans)
	}
}
