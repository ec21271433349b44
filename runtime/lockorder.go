package runtime

import "slices"

// This file rejects lock layouts that can deadlock.

// lockOrder rejects layouts that can deadlock. Stage locks are taken in
// canonical order (the order of `resources:`) and a stage holds nothing
// while it waits, except span locks, which stay held until the span's last
// stage ends. So while a span's lock L is held, every lock its partition
// may wait for before the span ends must come after L in canonical order; a
// lock before L, or L itself, could wait on a partition that waits on us.
// Those waits are the locks of the stages the span covers, and also of the
// stages on a parallel branch that the span's last stage needs: they may
// start after L was taken, and L is not given back until they end.
func (l *loader) lockOrder() {
	for _, sp := range l.p.Spans {
		// From takes L with its own locks and any other span starting
		// there, in one request: together they must fit. Report once per
		// resource, at the first span on it.
		first, seen := true, false
		var sum weightSum
		for _, other := range sp.From.spanStarts {
			if other.decl == sp.decl {
				if !seen && other != sp {
					first = false
				}
				seen = true
				sum.add(other.Weight)
			}
		}
		for _, lk := range sp.From.Locks {
			if lk.decl == sp.decl {
				sum.add(lk.Weight)
			}
		}
		if c := l.p.Resources[sp.decl].Capacity; first && sum.above(c) {
			l.ps.at(sp.node, "span of %q: stage %q takes %s of %q when it starts (its own locks and the spans starting there), above its capacity %d: the stage could never start",
				sp.Resource, sp.From.Name, sum.String(), sp.Resource, c)
		}
		for _, s := range l.whileHeld(sp) {
			covered := slices.Contains(s.within, sp)
			later := append([]Lock(nil), s.Locks...)
			for _, other := range s.spanStarts {
				later = append(later, other.Lock)
			}
			for _, lk := range later {
				switch {
				case lk.decl == sp.decl && covered:
					l.ps.at(lk.node, "stage %q locks %q, which the span from %q to %q already holds: a partition would wait for itself", s.Name, lk.Resource, sp.From.Name, sp.To.Name)
				case lk.decl == sp.decl:
					l.ps.at(lk.node, "stage %q locks %q, which the span from %q to %q may already hold (%q runs beside the span and %q waits for it): a partition would wait for itself; add %q to the needs of %q, so that it ends before the span starts",
						s.Name, lk.Resource, sp.From.Name, sp.To.Name, s.Name, sp.To.Name, s.Name, sp.From.Name)
				case lk.decl < sp.decl && covered:
					l.ps.at(lk.node, "lock order: stage %q takes %q while holding %q (span from %q to %q), but %q is declared first in resources, so two partitions can deadlock; declare %q before %q, or end the span before %q",
						s.Name, lk.Resource, sp.Resource, sp.From.Name, sp.To.Name, lk.Resource, sp.Resource, lk.Resource, s.Name)
				case lk.decl < sp.decl:
					l.ps.at(lk.node, "lock order: stage %q may take %q while its partition holds %q (span from %q to %q, which waits for %q to end), but %q is declared first in resources, so two partitions can deadlock; declare %q before %q, or add %q to the needs of %q",
						s.Name, lk.Resource, sp.Resource, sp.From.Name, sp.To.Name, s.Name, lk.Resource, sp.Resource, lk.Resource, s.Name, sp.From.Name)
				}
			}
		}
	}
}

// whileHeld returns, in topological order, the stages that may take locks
// while sp's lock is held: To and the stages To needs (directly or not),
// except From and the stages From needs, which end before From starts.
func (l *loader) whileHeld(sp *Span) []*Stage {
	before, after := ancestors(sp.From), ancestors(sp.To)
	var out []*Stage
	for _, s := range l.p.Stages {
		_, isBefore := before[s]
		_, isAfter := after[s]
		if s != sp.From && !isBefore && (isAfter || s == sp.To) {
			out = append(out, s)
		}
	}
	return out
}
