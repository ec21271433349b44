// Package lockstats computes lock statistics from lock holds: one record
// per grant of a resource (a lock or a stage's worker pool), from the grant
// to the release. The runtime records these holds (lock_hold spans in a
// trace, LockReleased events in a running engine), and every figure
// prooflane prints about a lock comes from Compute: `prooflane analyze`
// (text, --json and the HTML report), the Perfetto export and the table of
// `prooflane run`.
//
// The figures, for one resource and a window W (the makespan: the time the
// run took):
//
//	holds        acquisitions: grants of the resource (a lock held through
//	             a span of stages is one acquisition)
//	held         time anyone held it: the union of the hold intervals
//	util         held / W
//	mean holders sum of the hold durations / held: how many holders it had
//	             on average while anyone held it (above 1 only for a
//	             semaphore)
//	max holders  the most holds open at one instant
//	waits        acquisitions that queued before their grant
//	contention   waits / holds
//	wait total   the summed queue time of those acquisitions; wait mean is
//	             wait total / waits, wait max the longest
//
// A hold ending at the instant another starts does not overlap it.
package lockstats

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Hold is one grant of one resource, to its release.
type Hold struct {
	Resource string
	// Capacity is the resource's capacity in units; 0 when unknown.
	Capacity int64
	// Weight is the units held (1 for a mutex).
	Weight            int64
	Granted, Released time.Time
	// Wait is how long the acquisition queued for this resource before the
	// grant; 0 when it was granted at once.
	Wait time.Duration
}

// Stats are one resource's figures; the package doc defines each.
type Stats struct {
	Resource    string
	Capacity    int64 // 0 when unknown
	Holds       int
	Held        time.Duration
	Utilization float64 // 0 to 1
	MeanHolders float64
	MaxHolders  int
	Waits       int
	Contention  float64 // 0 to 1
	WaitTotal   time.Duration
	WaitMean    time.Duration
	WaitMax     time.Duration
}

// Compute returns the figures of every resource in holds, sorted by name.
// window is the time the figures are taken over (the makespan); util is 0
// when it is not positive. A hold that ends before it starts is an error
// naming the resource.
func Compute(holds []Hold, window time.Duration) ([]Stats, error) {
	by := map[string][]Hold{}
	for _, h := range holds {
		if h.Released.Before(h.Granted) {
			return nil, fmt.Errorf("resource %q: hold released at %s, before its grant at %s",
				h.Resource, h.Released.Format(time.RFC3339Nano), h.Granted.Format(time.RFC3339Nano))
		}
		if h.Resource == "" {
			return nil, errors.New("hold of a resource with no name")
		}
		by[h.Resource] = append(by[h.Resource], h)
	}
	out := make([]Stats, 0, len(by))
	for name, hs := range by {
		out = append(out, compute(name, hs, window))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out, nil
}

func compute(name string, hs []Hold, window time.Duration) Stats {
	st := Stats{Resource: name, Holds: len(hs)}
	var sum time.Duration
	type edge struct {
		at    time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(hs))
	for _, h := range hs {
		st.Capacity = max(st.Capacity, h.Capacity)
		sum += h.Released.Sub(h.Granted)
		if h.Wait > 0 {
			st.Waits++
			st.WaitTotal += h.Wait
			st.WaitMax = max(st.WaitMax, h.Wait)
		}
		edges = append(edges, edge{h.Granted, +1}, edge{h.Released, -1})
	}
	// Sweep the grants and releases in time order, releases first at one
	// instant: the number open is the holders; held is the time it was
	// above zero.
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta
	})
	open := 0
	var since time.Time
	for _, e := range edges {
		if open == 0 && e.delta > 0 {
			since = e.at
		}
		open += e.delta
		if open == 0 && e.delta < 0 {
			st.Held += e.at.Sub(since)
		}
		st.MaxHolders = max(st.MaxHolders, open)
	}
	if st.Held > 0 {
		st.MeanHolders = float64(sum) / float64(st.Held)
	}
	if window > 0 {
		st.Utilization = math.Min(1, float64(st.Held)/float64(window))
	}
	if st.Waits > 0 {
		st.WaitMean = st.WaitTotal / time.Duration(st.Waits)
	}
	if st.Holds > 0 {
		st.Contention = float64(st.Waits) / float64(st.Holds)
	}
	return st
}

// Header is the first line of the table WriteTable prints.
const Header = "resource\tcapacity\tholds\tutil\tmean holders\tmax holders\twaits\tcontention\twait total\twait mean\twait max\t"

// Row formats one resource's figures as a tab-separated row under Header.
func Row(st Stats) string {
	capacity := "-"
	if st.Capacity > 0 {
		capacity = fmt.Sprint(st.Capacity)
	}
	return fmt.Sprintf("%s\t%s\t%d\t%.1f%%\t%.2f\t%d\t%d\t%.0f%%\t%s\t%s\t%s\t", st.Resource, capacity, st.Holds,
		100*st.Utilization, st.MeanHolders, st.MaxHolders, st.Waits, 100*st.Contention,
		Dur(st.WaitTotal), Dur(st.WaitMean), Dur(st.WaitMax))
}

// Legend says in one line what the table's columns are.
const Legend = "util = time held by anyone / makespan; mean holders = while held; holds = acquisitions; contention = waits / holds"

// Dur prints a duration rounded for people.
func Dur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.String()
}

// WriteTable prints stats as a table with Header's columns, the resource
// names left-aligned and the figures right-aligned.
func WriteTable(w io.Writer, stats []Stats) error {
	nw := len("resource")
	for _, st := range stats {
		nw = max(nw, len(st.Resource))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	pad := func(row string) string {
		name, rest, _ := strings.Cut(row, "\t")
		return fmt.Sprintf("%-*s\t%s\n", nw, name, rest)
	}
	fmt.Fprint(tw, pad(Header))
	for _, st := range stats {
		fmt.Fprint(tw, pad(Row(st)))
	}
	return tw.Flush()
}
