package resources

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestSemaphoreAdmitsExactlyCapacityHolders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, Decl{Name: "sem", Capacity: 2})
		ctx := context.Background()
		first := acquireAsync(ctx, s, 0, Claim{0, 1})
		second := acquireAsync(ctx, s, 0, Claim{0, 1})
		synctest.Wait()
		g1 := granted(t, first, "first holder")
		g2 := granted(t, second, "second holder")

		third := acquireAsync(ctx, s, 0, Claim{0, 1})
		synctest.Wait()
		pending(t, third, "third holder while two hold")
		if st := s.Stats()[0]; st.InUse != 2 || st.Queued != 1 {
			t.Fatalf("InUse %d Queued %d, want 2 and 1", st.InUse, st.Queued)
		}

		g1.Release()
		synctest.Wait()
		g3 := granted(t, third, "third holder after a release")
		g2.Release()
		g3.Release()
		if st := s.Stats()[0]; st.InUse != 0 || st.Queued != 0 {
			t.Fatalf("after release: InUse %d Queued %d, want 0", st.InUse, st.Queued)
		}
	})
}

func TestMutexSerializesHolders(t *testing.T) {
	s := newSet(t, 0, mutexes("m")...)
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				g, err := s.Acquire(context.Background(), []Claim{{0, 1}}, 0, nil)
				if err != nil {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				inside.Add(-1)
				g.Release()
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d holders at once, want 1", most.Load())
	}
}

func TestClaimAboveCapacityFailsAtOnce(t *testing.T) {
	s := newSet(t, 0, Decl{Name: "a", Capacity: 1}, Decl{Name: "sem", Capacity: 2})
	held := mustAcquire(t, s, Claim{0, 1}, Claim{1, 2}) // a waiter would block forever
	defer held.Release()
	tests := []struct {
		name   string
		claims []Claim
		want   string
	}{
		{"single", []Claim{{1, 3}}, `resource "sem": claim of 3: weight above capacity 2`},
		{"merged duplicates", []Claim{{1, 2}, {1, 1}}, `resource "sem": claim of 3: weight above capacity 2`},
		{"mutex", []Claim{{0, 2}}, `resource "a": claim of 2: weight above capacity 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := s.Acquire(context.Background(), tt.claims, 0, nil)
			if !errors.Is(err, ErrOverCapacity) || err.Error() != tt.want {
				t.Fatalf("Acquire = %v, %v; want %q wrapping ErrOverCapacity", g, err, tt.want)
			}
			g, ok, err := s.TryAcquire(tt.claims)
			if !errors.Is(err, ErrOverCapacity) || ok || g != nil {
				t.Fatalf("TryAcquire = %v, %v, %v; want ErrOverCapacity", g, ok, err)
			}
		})
	}
}

func TestInvalidClaimsFail(t *testing.T) {
	s := newSet(t, 0, mutexes("a")...)
	tests := []struct {
		claims []Claim
		want   string
	}{
		{[]Claim{{1, 1}}, "claim of unknown resource id 1 (have 1 resources)"},
		{[]Claim{{-1, 1}}, "claim of unknown resource id -1 (have 1 resources)"},
		{[]Claim{{0, 0}}, `resource "a": claim weight 0, want at least 1`},
		{[]Claim{{0, -1}}, `resource "a": claim weight -1, want at least 1`},
	}
	for _, tt := range tests {
		if _, err := s.Acquire(context.Background(), tt.claims, 0, nil); err == nil || err.Error() != tt.want {
			t.Errorf("Acquire(%v) error = %v, want %q", tt.claims, err, tt.want)
		}
	}
	if got := inUse(s); got["a"] != 0 {
		t.Fatalf("InUse after invalid claims = %v, want 0", got)
	}
}

func TestDuplicateClaimsMergeAndIDsAreCanonical(t *testing.T) {
	s := newSet(t, 0, Decl{Name: "a", Capacity: 1}, Decl{Name: "b", Capacity: 3}, Decl{Name: "c", Capacity: 1})
	g := mustAcquire(t, s, Claim{2, 1}, Claim{1, 1}, Claim{0, 1}, Claim{1, 2})
	if ids := g.IDs(); !slices.Equal(ids, []ID{0, 1, 2}) {
		t.Fatalf("IDs() = %v, want [0 1 2]", ids)
	}
	if got := inUse(s); got["a"] != 1 || got["b"] != 3 || got["c"] != 1 {
		t.Fatalf("InUse = %v, want a:1 b:3 c:1", got)
	}
	g.Release()
	if got := inUse(s); got["a"]+got["b"]+got["c"] != 0 {
		t.Fatalf("InUse after release = %v, want 0", got)
	}
}

func TestEmptyClaimsGrantNothing(t *testing.T) {
	s := newSet(t, 0, mutexes("a")...)
	g, err := s.Acquire(context.Background(), nil, 0, nil)
	if err != nil || len(g.IDs()) != 0 {
		t.Fatalf("Acquire(nil) = %v, %v; want an empty grant", g.IDs(), err)
	}
	g.Release()
}

func TestReleaseTwiceIsANoop(t *testing.T) {
	s := newSet(t, 0, Decl{Name: "sem", Capacity: 2})
	g1 := mustAcquire(t, s, Claim{0, 1})
	g2 := mustAcquire(t, s, Claim{0, 1})
	g1.Release()
	g1.Release()
	if got := inUse(s)["sem"]; got != 1 {
		t.Fatalf("InUse = %d after releasing one grant twice, want 1 (the other holder)", got)
	}
	g2.Release()
	var nilGrant *Grant
	nilGrant.Release()
}

// queueInOrder starts one Acquire per request, each after the previous is
// parked, so arrival order is the slice order. It returns their channels.
func queueInOrder(s *Set, reqs []request) []<-chan result {
	chans := make([]<-chan result, len(reqs))
	for i, r := range reqs {
		chans[i] = acquireAsync(context.Background(), s, r.priority, r.claims...)
		synctest.Wait()
	}
	return chans
}

type request struct {
	name     string
	priority int
	claims   []Claim
}

// serveOrder releases the initial holder and each grant in turn, and returns
// the names of the requests in the order they were granted.
func serveOrder(t *testing.T, holder *Grant, reqs []request, chans []<-chan result) []string {
	t.Helper()
	var order []string
	holder.Release()
	for range reqs {
		synctest.Wait()
		var grants []*Grant
		for i, ch := range chans {
			select {
			case r := <-ch:
				if r.err != nil {
					t.Fatalf("%s: %v", reqs[i].name, r.err)
				}
				order = append(order, reqs[i].name)
				grants = append(grants, r.g)
			default:
			}
		}
		for _, g := range grants {
			g.Release()
		}
		if len(order) == len(reqs) {
			break
		}
	}
	return order
}

func TestWaitersServedByPriorityThenArrival(t *testing.T) {
	tests := []struct {
		name     string
		capacity int64
		holder   int64 // weight held while the requests queue
		reqs     []request
		want     []string
	}{
		{
			name: "fifo", capacity: 1, holder: 1,
			reqs: []request{{"w1", 0, []Claim{{0, 1}}}, {"w2", 0, []Claim{{0, 1}}}, {"w3", 0, []Claim{{0, 1}}}, {"w4", 0, []Claim{{0, 1}}}},
			want: []string{"w1", "w2", "w3", "w4"},
		},
		{
			name: "later higher priority first", capacity: 1, holder: 1,
			reqs: []request{{"low", 0, []Claim{{0, 1}}}, {"mid", 1, []Claim{{0, 1}}}, {"high", 5, []Claim{{0, 1}}}, {"mid2", 1, []Claim{{0, 1}}}, {"neg", -1, []Claim{{0, 1}}}},
			want: []string{"high", "mid", "mid2", "low", "neg"},
		},
		{
			// A weight-2 head blocks the weight-1 requests behind it even
			// though one unit is free: they do not barge past it.
			name: "large head not starved", capacity: 2, holder: 1,
			reqs: []request{{"big", 0, []Claim{{0, 2}}}, {"small1", 0, []Claim{{0, 1}}}, {"small2", 0, []Claim{{0, 1}}}},
			want: []string{"big", "small1", "small2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newSet(t, 0, Decl{Name: "r", Capacity: tt.capacity})
				holder := mustAcquire(t, s, Claim{0, tt.holder})
				chans := queueInOrder(s, tt.reqs)
				for i, ch := range chans {
					pending(t, ch, tt.reqs[i].name)
				}
				if got := serveOrder(t, holder, tt.reqs, chans); !slices.Equal(got, tt.want) {
					t.Fatalf("served %v, want %v", got, tt.want)
				}
			})
		})
	}
}

func TestLargeWaiterBlocksLaterSmallRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, Decl{Name: "sem", Capacity: 2})
		holder := mustAcquire(t, s, Claim{0, 1})
		big := acquireAsync(context.Background(), s, 0, Claim{0, 2})
		synctest.Wait()
		if g, ok, err := s.TryAcquire([]Claim{{0, 1}}); ok || err != nil {
			t.Fatalf("TryAcquire of the free unit = %v, %v, %v; want refused behind the large waiter", g, ok, err)
		}
		small := acquireAsync(context.Background(), s, 0, Claim{0, 1})
		synctest.Wait()
		pending(t, small, "small request behind a large waiter")
		pending(t, big, "large waiter")
		holder.Release()
		synctest.Wait()
		granted(t, big, "large waiter").Release()
		synctest.Wait()
		granted(t, small, "small request").Release()
	})
}

func TestCanonicalOrderPreventsDeadlock(t *testing.T) {
	// Inside a bubble, a deadlock makes synctest.Test fail instead of hanging.
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, mutexes("a", "b", "c")...)
		orders := [][]Claim{
			{{0, 1}, {1, 1}},
			{{1, 1}, {0, 1}},
			{{2, 1}, {1, 1}, {0, 1}},
			{{1, 1}, {2, 1}},
		}
		var wg sync.WaitGroup
		for i, claims := range orders {
			wg.Go(func() {
				for n := range 500 {
					g, err := s.Acquire(context.Background(), claims, i%2, nil)
					if err != nil {
						t.Errorf("request %d iteration %d: %v", i, n, err)
						return
					}
					if n%3 == 0 {
						time.Sleep(time.Microsecond) // let others queue behind the holder
					}
					g.Release()
				}
			})
		}
		wg.Wait()
		for name, n := range inUse(s) {
			if n != 0 {
				t.Errorf("%s InUse %d after all released, want 0", name, n)
			}
		}
	})
}

func TestCancelWhileQueuedOnSecondGivesBackFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, mutexes("a", "b")...)
		holdB := mustAcquire(t, s, Claim{1, 1})
		ctx, cancel := context.WithCancel(context.Background())
		var waits []string
		res := make(chan error, 1)
		go func() {
			_, err := s.Acquire(ctx, []Claim{{0, 1}, {1, 1}}, 0, func(id ID, w int64, from, to time.Time) {
				waits = append(waits, fmt.Sprintf("%s:%d:%v", s.Name(id), w, to.Sub(from)))
			})
			res <- err
		}()
		synctest.Wait() // holds a, queued on b
		other := acquireAsync(context.Background(), s, 0, Claim{0, 1})
		synctest.Wait()
		pending(t, other, "other waiter on a")
		if got := inUse(s); got["a"] != 1 || got["b"] != 1 {
			t.Fatalf("InUse before cancel = %v, want a:1 b:1", got)
		}

		time.Sleep(3 * time.Second)
		cancel()
		synctest.Wait()
		err := <-res
		if !errors.Is(err, context.Canceled) || err.Error() != `waiting for resource "b": context canceled` {
			t.Fatalf("Acquire after cancel = %v, want context.Canceled naming \"b\"", err)
		}
		if want := []string{"b:1:3s"}; !slices.Equal(waits, want) {
			t.Fatalf("onWait calls %v, want %v", waits, want)
		}
		g := granted(t, other, "other waiter on a after cancel")
		st := s.Stats()
		if st[0].InUse != 1 || st[1].InUse != 1 || st[1].Queued != 0 || st[1].Cancelled != 1 {
			t.Fatalf("stats after cancel = %+v, want a held by the other waiter, b by its holder, one cancel on b", st)
		}
		g.Release()
		holdB.Release()
		if got := inUse(s); got["a"] != 0 || got["b"] != 0 {
			t.Fatalf("InUse at end = %v, want 0", got)
		}
	})
}

func TestCancelledHeadLetsSmallerWaitersThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, Decl{Name: "sem", Capacity: 2})
		holder := mustAcquire(t, s, Claim{0, 1})
		ctx, cancel := context.WithCancel(context.Background())
		big := acquireAsync(ctx, s, 0, Claim{0, 2})
		synctest.Wait()
		small := acquireAsync(context.Background(), s, 0, Claim{0, 1})
		synctest.Wait()
		pending(t, small, "small behind big")
		cancel()
		synctest.Wait()
		if r := <-big; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("big after cancel: %v, want context.Canceled", r.err)
		}
		granted(t, small, "small after the head was cancelled").Release()
		holder.Release()
	})
}

func TestAcquireWithDoneContextFails(t *testing.T) {
	s := newSet(t, 0, mutexes("a", "b")...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, err := s.Acquire(ctx, []Claim{{1, 1}, {0, 1}}, 0, nil)
	if !errors.Is(err, context.Canceled) || err.Error() != `waiting for resource "a": context canceled` || g != nil {
		t.Fatalf("Acquire = %v, %v; want context.Canceled naming \"a\"", g, err)
	}
	if _, err := s.Acquire(ctx, nil, 0, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire(nil claims) = %v, want context.Canceled", err)
	}
	if got := inUse(s); got["a"]+got["b"] != 0 {
		t.Fatalf("InUse = %v, want 0", got)
	}
}

func TestCancelRacingGrantNeverLeaks(t *testing.T) {
	s := newSet(t, 0, Decl{Name: "a", Capacity: 1}, Decl{Name: "sem", Capacity: 3}, Decl{Name: "c", Capacity: 1})
	var over atomic.Int64 // capacity violations seen by holders
	held := make([]atomic.Int64, s.Len())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range 400 {
				var claims []Claim
				for id := range ID(s.Len()) {
					if rng.IntN(2) == 0 {
						claims = append(claims, Claim{id, 1 + rng.Int64N(s.Capacity(id))})
					}
				}
				ctx, cancel := context.WithCancel(context.Background())
				if rng.IntN(2) == 0 {
					go cancel() // races with the grant
				}
				g, err := s.Acquire(ctx, claims, rng.IntN(3), nil)
				if err == nil {
					for _, c := range claims {
						if held[c.ID].Add(c.Weight) > s.Capacity(c.ID) {
							over.Add(1)
						}
					}
					for _, c := range claims {
						held[c.ID].Add(-c.Weight)
					}
					g.Release()
				} else if !errors.Is(err, context.Canceled) {
					t.Error(err)
				}
				cancel()
			}
		})
	}
	wg.Wait()
	if over.Load() != 0 {
		t.Errorf("%d times a resource held above its capacity", over.Load())
	}
	for _, st := range s.Stats() {
		if st.InUse != 0 || st.Queued != 0 {
			t.Errorf("%s: InUse %d Queued %d after the stress, want 0", st.Name, st.InUse, st.Queued)
		}
	}
}

func TestTryAcquireTakesAllOrNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, mutexes("a", "b", "c")...)
		holdC := mustAcquire(t, s, Claim{2, 1})
		if g, ok, err := s.TryAcquire([]Claim{{0, 1}, {1, 1}, {2, 1}}); ok || err != nil || g != nil {
			t.Fatalf("TryAcquire with c held = %v, %v, %v; want refused", g, ok, err)
		}
		if got := inUse(s); got["a"] != 0 || got["b"] != 0 {
			t.Fatalf("InUse after a refused TryAcquire = %v, want a and b free", got)
		}
		// A queued waiter on a free-looking resource also refuses TryAcquire.
		waiter := acquireAsync(context.Background(), s, 0, Claim{1, 1}, Claim{2, 1})
		synctest.Wait()
		if _, ok, _ := s.TryAcquire([]Claim{{2, 1}}); ok {
			t.Fatal("TryAcquire of c granted while c is held")
		}
		g := mustAcquire(t, s, Claim{0, 1})
		g.Release()
		holdC.Release()
		synctest.Wait()
		granted(t, waiter, "waiter on b, c").Release()
	})
}

func TestErrorsNameTheResource(t *testing.T) {
	s := newSet(t, 2, Decl{Name: "gpu.{gpu}.mem", Capacity: 1})
	id, _ := s.Lookup("gpu.{gpu}.mem", 1)
	_, err := s.Acquire(context.Background(), []Claim{{id, 2}}, 0, nil)
	if err == nil || !strings.Contains(err.Error(), `"gpu.1.mem"`) {
		t.Fatalf("error %v does not name gpu.1.mem", err)
	}
}

func TestCancelAfterFullGrantGivesEverythingBack(t *testing.T) {
	s := newSet(t, 0, mutexes("a", "b")...)
	defer func() { testHookParked = nil }()
	var cancelled int
	for n := range 200 {
		holdB := mustAcquire(t, s, Claim{1, 1})
		ctx, cancel := context.WithCancel(context.Background())
		// Parked on b: grant it fully and cancel before Acquire waits, so
		// that both are ready when it does (select then picks either).
		testHookParked = func() { holdB.Release(); cancel() }
		var waited []ID
		g, err := s.Acquire(ctx, []Claim{{0, 1}, {1, 1}}, 0, func(id ID, _ int64, _, _ time.Time) { waited = append(waited, id) })
		testHookParked = nil
		if !slices.Equal(waited, []ID{1}) {
			t.Fatalf("iteration %d: onWait for %v, want [1] (b)", n, waited)
		}
		if err != nil {
			cancelled++
			if !errors.Is(err, context.Canceled) || err.Error() != `waiting for resource "b": context canceled` {
				t.Fatalf("iteration %d: %v, want context.Canceled naming \"b\"", n, err)
			}
		} else {
			g.Release()
		}
		if got := inUse(s); got["a"] != 0 || got["b"] != 0 {
			t.Fatalf("iteration %d (err %v): InUse %v, want 0", n, err, got)
		}
	}
	if cancelled == 0 {
		t.Fatal("the cancellation never won the race in 200 tries")
	}
}
