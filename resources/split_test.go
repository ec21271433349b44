package resources

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestSplitHandsUnitsOverWithoutFreeingThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, Decl{Name: "a", Capacity: 1}, Decl{Name: "sem", Capacity: 3}, Decl{Name: "span", Capacity: 1})
		clock := newFakeClock()
		s.SetClock(clock.Now)
		g := mustAcquire(t, s, Claim{0, 1}, Claim{1, 3}, Claim{2, 1})
		waiter := acquireAsync(context.Background(), s, 0, Claim{2, 1})
		synctest.Wait()

		span := g.Split([]Claim{{2, 1}, {1, 1}, {1, 1}})
		if ids := span.IDs(); !slices.Equal(ids, []ID{1, 2}) {
			t.Fatalf("split IDs %v, want [1 2] (canonical, merged)", ids)
		}
		if ids := g.IDs(); !slices.Equal(ids, []ID{0, 1}) {
			t.Fatalf("remaining IDs %v, want [0 1]", ids)
		}
		clock.Advance(time.Second)
		g.Release() // a and 1 unit of sem; span and 2 units of sem stay held
		synctest.Wait()
		pending(t, waiter, "waiter on the span lock")
		if got := inUse(s); got["a"] != 0 || got["sem"] != 2 || got["span"] != 1 {
			t.Fatalf("InUse after releasing the rest = %v, want a:0 sem:2 span:1", got)
		}
		clock.Advance(time.Second)
		span.Release()
		synctest.Wait()
		granted(t, waiter, "waiter after the span ends").Release()

		st := s.Stats()
		if st[1].Hold != 5*time.Second || st[2].Hold != 2*time.Second || st[2].Acquisitions != 2 {
			t.Fatalf("stats %+v, want sem Hold 5s (1×1s + 2×2s), span Hold 2s with 2 acquisitions", st)
		}
	})
}

func TestSplitOfUnheldClaimPanics(t *testing.T) {
	s := newSet(t, 0, Decl{Name: "a", Capacity: 1}, Decl{Name: "sem", Capacity: 3})
	tests := []struct {
		name   string
		claims []Claim
	}{
		{"not held", []Claim{{0, 1}}},
		{"more than held", []Claim{{1, 2}, {1, 1}}},
		{"zero weight", []Claim{{1, 0}}},
		{"negative weight", []Claim{{1, -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustAcquire(t, s, Claim{1, 2})
			defer g.Release()
			defer func() {
				if recover() == nil {
					t.Fatalf("Split(%v) did not panic", tt.claims)
				}
			}()
			g.Split(tt.claims)
		})
		if got := inUse(s); got["sem"] != 0 {
			t.Fatalf("%s: InUse %v after the panicking Split was released, want 0 (grant left intact)", tt.name, got)
		}
	}
	g := mustAcquire(t, s, Claim{1, 1})
	g.Release()
	defer func() {
		if recover() == nil {
			t.Fatal("Split of a released grant did not panic")
		}
	}()
	g.Split([]Claim{{1, 1}})
}
