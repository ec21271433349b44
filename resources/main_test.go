package resources

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newSet builds a Set or fails the test.
func newSet(t testing.TB, devices int, decls ...Decl) *Set {
	t.Helper()
	s, err := NewSet(decls, devices)
	if err != nil {
		t.Fatalf("NewSet: %v", err)
	}
	return s
}

// mutexes declares capacity-1 resources with the given names.
func mutexes(names ...string) []Decl {
	decls := make([]Decl, len(names))
	for i, n := range names {
		decls[i] = Decl{Name: n, Capacity: 1}
	}
	return decls
}

type result struct {
	g   *Grant
	err error
}

// acquireAsync runs Acquire on its own goroutine; its result arrives on the
// returned channel.
func acquireAsync(ctx context.Context, s *Set, priority int, claims ...Claim) <-chan result {
	ch := make(chan result, 1)
	go func() {
		g, err := s.Acquire(ctx, claims, priority, nil)
		ch <- result{g, err}
	}()
	return ch
}

// mustAcquire takes claims that are expected to be free.
func mustAcquire(t testing.TB, s *Set, claims ...Claim) *Grant {
	t.Helper()
	g, ok, err := s.TryAcquire(claims)
	if err != nil || !ok {
		t.Fatalf("TryAcquire(%v) = ok %v, err %v; want granted at once", claims, ok, err)
	}
	return g
}

// pending fails the test if ch already has a result.
func pending(t *testing.T, ch <-chan result, what string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s: got grant %v err %v, want still queued", what, r.g.IDs(), r.err)
	default:
	}
}

// granted receives a successful result from ch; inside a synctest bubble
// the caller must synctest.Wait first.
func granted(t *testing.T, ch <-chan result, what string) *Grant {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("%s: %v", what, r.err)
		}
		return r.g
	default:
		t.Fatalf("%s: still queued, want granted", what)
		return nil
	}
}

// inUse returns every resource's units in use, by name.
func inUse(s *Set) map[string]int64 {
	m := map[string]int64{}
	for _, st := range s.Stats() {
		m[st.Name] = st.InUse
	}
	return m
}

// fakeClock is a manual clock for exact stats.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
