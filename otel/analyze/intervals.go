package analyze

import (
	"sort"
	"time"
)

// interval is a half-open time range [Start, End).
type interval struct{ Start, End time.Time }

func (iv interval) dur() time.Duration { return iv.End.Sub(iv.Start) }

// union merges overlapping or touching intervals; the result is sorted and
// disjoint. The input is not modified.
func union(in []interval) []interval {
	if len(in) == 0 {
		return nil
	}
	ivs := append([]interval(nil), in...)
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].Start.Before(ivs[j].Start) })
	out := []interval{ivs[0]}
	for _, iv := range ivs[1:] {
		last := &out[len(out)-1]
		if !iv.Start.After(last.End) {
			if iv.End.After(last.End) {
				last.End = iv.End
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}

// total is the summed length of disjoint intervals.
func total(ivs []interval) time.Duration {
	var d time.Duration
	for _, iv := range ivs {
		d += iv.dur()
	}
	return d
}

// intersect returns the overlap of two sorted disjoint interval lists.
func intersect(a, b []interval) []interval {
	var out []interval
	for i, j := 0, 0; i < len(a) && j < len(b); {
		s, e := maxTime(a[i].Start, b[j].Start), minTime(a[i].End, b[j].End)
		if s.Before(e) {
			out = append(out, interval{s, e})
		}
		if a[i].End.Before(b[j].End) {
			i++
		} else {
			j++
		}
	}
	return out
}

// complement returns the parts of [from, to) not covered by the sorted
// disjoint intervals ivs.
func complement(ivs []interval, from, to time.Time) []interval {
	var out []interval
	cur := from
	for _, iv := range ivs {
		if iv.Start.After(cur) {
			out = append(out, interval{cur, minTime(iv.Start, to)})
		}
		if iv.End.After(cur) {
			cur = iv.End
		}
		if !cur.Before(to) {
			return out
		}
	}
	if cur.Before(to) {
		out = append(out, interval{cur, to})
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
