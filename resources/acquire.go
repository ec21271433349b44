package resources

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrOverCapacity is wrapped by the error of a claim whose weight is above
// its resource's capacity: such a claim could never be granted.
var ErrOverCapacity = errors.New("weight above capacity")

// testHookParked, set only by tests, runs after an Acquire has parked and
// before it waits, to let a grant and a cancellation both happen there.
var testHookParked func()

// Claim asks for Weight units (at least 1) of one resource.
type Claim struct {
	ID     ID
	Weight int64
}

// Grant is the resources held by one successful Acquire or TryAcquire.
type Grant struct {
	s        *Set
	items    []held // canonical order, distinct IDs
	released bool   // guarded by s.mu
	buf      [3]held
}

// held is one merged claim of a grant; start is when it was taken.
type held struct {
	id     ID
	weight int64
	start  time.Time
}

// waiter is a parked Acquire: it waits on resource items[next].id of its
// grant, having taken items[:next].
type waiter struct {
	g        *Grant
	next     int
	priority int
	seq      uint64
	queuedAt time.Time
	waits    []wait        // queues left so far, for onWait
	done     bool          // fully granted; ready has been signalled
	ready    chan struct{} // buffered 1
}

type wait struct {
	id       ID
	weight   int64
	from, to time.Time
}

// resource is one concrete resource, guarded by Set.mu.
type resource struct {
	name     string
	capacity int64
	inUse    int64
	waiters  []*waiter // by priority desc, then seq asc; the head never fits
	st       counters
}

// Acquire takes every claim and returns a Grant. Claims are taken in
// canonical (ID) order, one resource after the other, holding those already
// taken while queued on the next; duplicate IDs are merged by adding weights.
// Waiters on each resource are served by priority (higher first), then in
// order of their Acquire calls; a waiter at the head that does not fit blocks
// later ones. A claim above capacity fails at once with an error wrapping
// ErrOverCapacity.
//
// When ctx is done before everything is granted, or was done on entry,
// everything taken is given back, nothing is held, and the error wraps
// ctx.Err() and names the resource that was being waited for.
//
// onWait, if not nil, is called for each resource the request had to queue
// on, with the times it queued and was granted (or gave up, on
// cancellation). It is called on the calling goroutine, with no lock held,
// before Acquire returns.
func (s *Set) Acquire(ctx context.Context, claims []Claim, priority int, onWait func(id ID, weight int64, from, to time.Time)) (*Grant, error) {
	g, err := s.newGrant(claims)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		if len(g.items) == 0 {
			return nil, fmt.Errorf("acquiring resources: %w", err)
		}
		return nil, fmt.Errorf("waiting for resource %q: %w", s.res[g.items[0].id].name, err)
	}
	s.mu.Lock()
	s.seq++
	seq := s.seq
	now := s.now()
	next := s.take(g, 0, priority, seq, now)
	if next == len(g.items) {
		s.mu.Unlock()
		return g, nil
	}
	w := &waiter{g: g, next: next, priority: priority, seq: seq, queuedAt: now, ready: make(chan struct{}, 1)}
	s.park(w)
	s.mu.Unlock()
	if testHookParked != nil {
		testHookParked()
	}

	select {
	case <-w.ready:
		w.report(onWait)
		return g, nil
	case <-ctx.Done():
	}

	s.mu.Lock()
	now = s.now()
	var waitedOn ID
	if w.done {
		// Granted while ctx fired: give it all back, as if cancelled first.
		waitedOn = w.waits[len(w.waits)-1].id
		s.release(g.items, now)
	} else {
		it := g.items[w.next]
		waitedOn = it.id
		r := &s.res[it.id]
		s.unpark(r, w, now)
		r.st.cancelled++
		w.waits = append(w.waits, wait{id: it.id, weight: it.weight, from: w.queuedAt, to: now})
		s.release(g.items[:w.next], now)
	}
	g.released = true
	s.mu.Unlock()
	w.report(onWait)
	return nil, fmt.Errorf("waiting for resource %q: %w", s.res[waitedOn].name, ctx.Err())
}

// TryAcquire is Acquire that never waits: it returns ok=false, holding
// nothing, when any resource would have to queue (not enough free units, or
// waiters already queued). Invalid claims and claims above capacity return an
// error, as for Acquire.
func (s *Set) TryAcquire(claims []Claim) (g *Grant, ok bool, err error) {
	g, err = s.newGrant(claims)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range g.items {
		r := &s.res[it.id]
		if len(r.waiters) > 0 || r.inUse+it.weight > r.capacity {
			return nil, false, nil
		}
	}
	now := s.now()
	for i := range g.items {
		s.grant(&g.items[i], now)
	}
	return g, true, nil
}

// Release gives every claim back and serves the waiters that now fit.
// Releasing twice, or a nil Grant, is a no-op.
func (g *Grant) Release() {
	if g == nil || g.s == nil {
		return
	}
	s := g.s
	s.mu.Lock()
	if !g.released {
		g.released = true
		s.release(g.items, s.now())
	}
	s.mu.Unlock()
}

// IDs returns the concrete resources held, in canonical order.
func (g *Grant) IDs() []ID {
	if g == nil {
		return nil
	}
	ids := make([]ID, len(g.items))
	for i, it := range g.items {
		ids[i] = it.id
	}
	return ids
}

// newGrant checks claims and returns them merged and sorted in a Grant.
func (s *Set) newGrant(claims []Claim) (*Grant, error) {
	g := &Grant{s: s}
	if len(claims) <= len(g.buf) {
		g.items = g.buf[:0]
	} else {
		g.items = make([]held, 0, len(claims))
	}
	for _, c := range claims {
		if c.ID < 0 || int(c.ID) >= len(s.res) {
			return nil, fmt.Errorf("claim of unknown resource id %d (have %d resources)", c.ID, len(s.res))
		}
		if c.Weight < 1 {
			return nil, fmt.Errorf("resource %q: claim weight %d, want at least 1", s.res[c.ID].name, c.Weight)
		}
		g.add(held{id: c.ID, weight: c.Weight})
	}
	for _, it := range g.items {
		if r := &s.res[it.id]; it.weight > r.capacity {
			return nil, fmt.Errorf("resource %q: claim of %d: %w %d", r.name, it.weight, ErrOverCapacity, r.capacity)
		}
	}
	return g, nil
}

// take grants g.items[from:] in order while each fits without queuing ahead
// of its turn, and returns the index of the first it could not take.
func (s *Set) take(g *Grant, from, priority int, seq uint64, now time.Time) int {
	for i := from; i < len(g.items); i++ {
		it := &g.items[i]
		r := &s.res[it.id]
		if r.inUse+it.weight > r.capacity {
			return i
		}
		if len(r.waiters) > 0 && !precedes(priority, seq, r.waiters[0]) {
			return i
		}
		s.grant(it, now)
	}
	return len(g.items)
}

// grant gives it its units at now.
func (s *Set) grant(it *held, now time.Time) {
	r := &s.res[it.id]
	r.inUse += it.weight
	it.start = now
	r.st.acquisitions++
	r.st.openStart += time.Duration(it.weight) * now.Sub(s.epoch)
}

// release gives items back at now, then serves the waiters that fit.
func (s *Set) release(items []held, now time.Time) {
	for _, it := range items {
		r := &s.res[it.id]
		r.inUse -= it.weight
		start := it.start
		if start.Before(s.epoch) { // taken before ResetStats
			start = s.epoch
		}
		r.st.hold += time.Duration(it.weight) * now.Sub(start)
		r.st.openStart -= time.Duration(it.weight) * start.Sub(s.epoch)
	}
	for _, it := range items {
		s.serve(&s.res[it.id], now)
	}
}

// serve grants waiters at the head of r's queue while they fit; each one
// granted goes on to take its next resources, parking again where it must.
func (s *Set) serve(r *resource, now time.Time) {
	for len(r.waiters) > 0 {
		w := r.waiters[0]
		it := &w.g.items[w.next]
		if r.inUse+it.weight > r.capacity {
			return
		}
		copy(r.waiters, r.waiters[1:])
		r.waiters[len(r.waiters)-1] = nil
		r.waiters = r.waiters[:len(r.waiters)-1]

		s.grant(it, now)
		waited := now.Sub(w.queuedAt)
		r.st.contended++
		r.st.wait += waited
		r.st.maxWait = max(r.st.maxWait, waited)
		w.waits = append(w.waits, wait{id: it.id, weight: it.weight, from: w.queuedAt, to: now})

		w.next = s.take(w.g, w.next+1, w.priority, w.seq, now)
		if w.next == len(w.g.items) {
			w.done = true
			w.ready <- struct{}{}
		} else {
			w.queuedAt = now
			s.park(w)
		}
	}
}

// park queues w on the resource of its next item, in (priority, seq) order.
func (s *Set) park(w *waiter) {
	r := &s.res[w.g.items[w.next].id]
	i := len(r.waiters)
	for i > 0 && precedes(w.priority, w.seq, r.waiters[i-1]) {
		i--
	}
	r.waiters = append(r.waiters, nil)
	copy(r.waiters[i+1:], r.waiters[i:])
	r.waiters[i] = w
}

// unpark removes w from r's queue; if w was the head, those behind it may
// now fit.
func (s *Set) unpark(r *resource, w *waiter, now time.Time) {
	for i, x := range r.waiters {
		if x == w {
			copy(r.waiters[i:], r.waiters[i+1:])
			r.waiters[len(r.waiters)-1] = nil
			r.waiters = r.waiters[:len(r.waiters)-1]
			if i == 0 {
				s.serve(r, now)
			}
			return
		}
	}
}

// precedes reports whether a request (priority, seq) is served before w.
func precedes(priority int, seq uint64, w *waiter) bool {
	return priority > w.priority || priority == w.priority && seq < w.seq
}

func (w *waiter) report(onWait func(id ID, weight int64, from, to time.Time)) {
	if onWait == nil {
		return
	}
	for _, x := range w.waits {
		onWait(x.id, x.weight, x.from, x.to)
	}
}
