package resources

import "fmt"

// Split moves claims out of g into a new Grant that is released on its
// own; g keeps the rest. It is how a lock taken together with a stage's own
// locks outlives the stage (a span lock). Each claim must be held by g with
// at least its weight; anything else is a caller bug and panics.
func (g *Grant) Split(claims []Claim) *Grant {
	s := g.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.released {
		panic("resources: Split of a released grant")
	}
	out := &Grant{s: s}
	out.items = out.buf[:0]
	for _, c := range claims {
		i := 0
		for i < len(g.items) && g.items[i].id != c.ID {
			i++
		}
		if i == len(g.items) || g.items[i].weight < c.Weight {
			panic(fmt.Sprintf("resources: Split of %q weight %d, which the grant does not hold", s.res[c.ID].name, c.Weight))
		}
		out.items = append(out.items, held{id: c.ID, weight: c.Weight, start: g.items[i].start})
		g.items[i].weight -= c.Weight
		if g.items[i].weight == 0 {
			g.items = append(g.items[:i], g.items[i+1:]...)
		}
	}
	return out
}
