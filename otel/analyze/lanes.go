package analyze

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// track is one timeline row group: a resource, a worker or a device, with
// its spans packed into lanes so no two spans of a lane overlap.
type track struct {
	Group string // "locks", "waits", "workers", "jobs"
	Name  string
	Lanes [][]*tracefile.Span
}

// pack assigns spans to the first lane whose last span ended before they
// start.
func pack(spans []*tracefile.Span) [][]*tracefile.Span {
	sorted := append([]*tracefile.Span(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start.Before(sorted[j].Start) })
	var lanes [][]*tracefile.Span
	for _, s := range sorted {
		placed := false
		for i, l := range lanes {
			if !l[len(l)-1].End.After(s.Start) {
				lanes[i] = append(l, s)
				placed = true
				break
			}
		}
		if !placed {
			lanes = append(lanes, []*tracefile.Span{s})
		}
	}
	return lanes
}

// tracks lays out the timeline's spans for the HTML page and the Perfetto
// export: one track per resource (its holds, then its waiters), one per
// stage worker slot and device, and one for jobs and partitions.
func tracks(t *trace) []track {
	held := map[string][]*tracefile.Span{}
	waited := map[string][]*tracefile.Span{}
	workers := map[string][]*tracefile.Span{}
	// Holders: the lock_hold spans (worker pools show on the worker
	// tracks); in a trace without them, the stage runs listing the lock.
	tl := &t.timeline
	for _, h := range tl.holds {
		if r := h.Str(string(pl.KeyResource)); !strings.HasPrefix(r, "workers.") {
			held[r] = append(held[r], h)
		}
	}
	for _, s := range tl.stages {
		if len(t.holds) == 0 {
			for _, l := range s.Strings(string(pl.KeyLocks)) {
				held[l] = append(held[l], s)
			}
		}
		key := stageName(s)
		if d := s.IntOr(string(pl.KeyDevice), -1); d >= 0 {
			key += fmt.Sprintf(" · gpu %d", d)
		}
		key += fmt.Sprintf(" · w%d", s.IntOr(string(pl.KeyWorker), 0))
		workers[key] = append(workers[key], s)
	}
	for _, w := range tl.waits {
		r := w.Str(string(pl.KeyResource))
		if strings.HasPrefix(r, "workers.") {
			continue // worker queues show as gaps on the worker tracks
		}
		waited[r] = append(waited[r], w)
	}
	var out []track
	names := map[string]bool{}
	for n := range held {
		names[n] = true
	}
	for n := range waited {
		names[n] = true
	}
	for _, n := range sortedResources(t, names) {
		if len(held[n]) > 0 {
			out = append(out, track{Group: "locks", Name: n, Lanes: pack(held[n])})
		}
		if len(waited[n]) > 0 {
			out = append(out, track{Group: "waits", Name: "wait " + n, Lanes: pack(waited[n])})
		}
	}
	var wnames []string
	for n := range workers {
		wnames = append(wnames, n)
	}
	sort.Strings(wnames)
	for _, n := range wnames {
		out = append(out, track{Group: "workers", Name: n, Lanes: pack(workers[n])})
	}
	kernels := map[int][]*tracefile.Span{}
	for _, k := range tl.kerns {
		d := int(k.IntOr(string(pl.KeyDevice), -1))
		kernels[d] = append(kernels[d], k)
	}
	var devs []int
	for d := range kernels {
		devs = append(devs, d)
	}
	sort.Ints(devs)
	for _, d := range devs {
		out = append(out, track{Group: "kernels", Name: fmt.Sprintf("gpu %d kernels", d), Lanes: pack(kernels[d])})
	}
	if len(tl.jobs) > 0 {
		out = append(out, track{Group: "jobs", Name: "jobs", Lanes: pack(tl.jobs)})
	}
	if len(tl.parts) > 0 {
		out = append(out, track{Group: "jobs", Name: "partitions", Lanes: pack(tl.parts)})
	}
	return out
}

// sortedResources orders device resources first, by device, then the
// rest by name.
func sortedResources(t *trace, set map[string]bool) []string {
	var out []string
	for n := range set {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := t.deviceOf(out[i]), t.deviceOf(out[j])
		if (di >= 0) != (dj >= 0) {
			return di >= 0
		}
		if di != dj {
			return di < dj
		}
		return out[i] < out[j]
	})
	return out
}

// tooltip describes a span for hovering: name, interval from origin,
// status, then its attributes sorted by key.
func tooltip(s *tracefile.Span, origin time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n+%s for %s", s.Name, lockstats.Dur(s.Start.Sub(origin)), lockstats.Dur(s.Duration()))
	if s.Status == tracefile.StatusError {
		fmt.Fprintf(&b, "\nERROR: %s", s.StatusMessage)
	}
	keys := make([]string, 0, len(s.Attrs))
	for k := range s.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s.Attrs[k]
		if l, ok := v.([]any); ok {
			parts := make([]string, len(l))
			for i, x := range l {
				parts[i] = fmt.Sprint(x)
			}
			v = "[" + strings.Join(parts, ", ") + "]"
		}
		fmt.Fprintf(&b, "\n%s = %v", strings.TrimPrefix(k, "prooflane."), v)
	}
	return b.String()
}
