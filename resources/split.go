package resources

import "fmt"

// Split moves claims out of g into a new Grant that is released on its
// own; g keeps the rest. It is how a lock taken together with a stage's own
// locks outlives the stage (a span lock). Each claim must be held by g with
// at least its weight (duplicate IDs add up), and weights must be at least 1;
// anything else, or a released g, is a caller bug and panics. The units
// change hands without being given back, so no waiter can take them in
// between, and their hold time keeps counting from the original grant.
func (g *Grant) Split(claims []Claim) *Grant {
	s := g.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.released {
		panic("resources: Split of a released grant")
	}
	// Check every claim before moving any, so a panic leaves g intact.
	for j, c := range claims {
		want := int64(0)
		for _, d := range claims[:j+1] {
			if d.ID == c.ID {
				want += d.Weight
			}
		}
		i := g.find(c.ID)
		if c.Weight < 1 || i < 0 || g.items[i].weight < want {
			panic(fmt.Sprintf("resources: Split of claim %d on resource id %d, which the grant does not hold", c.Weight, c.ID))
		}
	}
	out := &Grant{s: s}
	out.items = out.buf[:0]
	for _, c := range claims {
		i := g.find(c.ID)
		out.add(held{id: c.ID, weight: c.Weight, start: g.items[i].start})
		g.items[i].weight -= c.Weight
		if g.items[i].weight == 0 {
			g.items = append(g.items[:i], g.items[i+1:]...)
		}
	}
	return out
}

// add inserts h in canonical order, merging with an item of the same ID.
func (g *Grant) add(h held) {
	i := len(g.items)
	for i > 0 && g.items[i-1].id > h.id {
		i--
	}
	if i > 0 && g.items[i-1].id == h.id {
		g.items[i-1].weight += h.weight
		return
	}
	g.items = append(g.items, held{})
	copy(g.items[i+1:], g.items[i:])
	g.items[i] = h
}

// find returns the index of id in g.items, or -1.
func (g *Grant) find(id ID) int {
	for i, h := range g.items {
		if h.id == id {
			return i
		}
	}
	return -1
}
