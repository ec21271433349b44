package resources

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestStatsCountWaitHoldAndUtilizationExactly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, Decl{Name: "m", Capacity: 1}, Decl{Name: "sem", Capacity: 2})
		clock := newFakeClock()
		s.SetClock(clock.Now)

		g1 := mustAcquire(t, s, Claim{0, 1}, Claim{1, 2}) // t=0
		clock.Advance(time.Second)
		queued := acquireAsync(context.Background(), s, 0, Claim{0, 1}) // t=1s, queues on m
		synctest.Wait()
		clock.Advance(2 * time.Second)
		g1.Release() // t=3s: m held 3s, sem 2×3s; the waiter got m after 2s
		synctest.Wait()
		g2 := granted(t, queued, "waiter on m")
		clock.Advance(time.Second)
		g2.Release() // t=4s: m held 1s more
		clock.Advance(6 * time.Second)

		st := s.Stats() // t=10s
		want := []Stats{
			{Name: "m", Capacity: 1, Acquisitions: 2, Contended: 1, Wait: 2 * time.Second, MaxWait: 2 * time.Second, Hold: 4 * time.Second, Elapsed: 10 * time.Second},
			{Name: "sem", Capacity: 2, Acquisitions: 1, Hold: 6 * time.Second, Elapsed: 10 * time.Second},
		}
		if !slices.Equal(st, want) {
			t.Fatalf("Stats() =\n%+v\nwant\n%+v", st, want)
		}
		if u := st[0].Utilization(); u != 0.4 {
			t.Errorf("m utilization %v, want 0.4", u)
		}
		if u := st[1].Utilization(); u != 0.3 {
			t.Errorf("sem utilization %v, want 0.3", u)
		}

		// A hold in progress counts up to now.
		g3 := mustAcquire(t, s, Claim{1, 1}) // t=10s
		clock.Advance(2 * time.Second)
		if st := s.Stats()[1]; st.Hold != 8*time.Second || st.InUse != 1 || st.Elapsed != 12*time.Second {
			t.Fatalf("sem with an open hold: %+v, want Hold 8s InUse 1 Elapsed 12s", st)
		}

		// After a reset, units held across it count from the reset.
		s.ResetStats() // t=12s
		clock.Advance(3 * time.Second)
		g3.Release() // t=15s
		st = s.Stats()
		want = []Stats{
			{Name: "m", Capacity: 1, Elapsed: 3 * time.Second},
			{Name: "sem", Capacity: 2, Hold: 3 * time.Second, Elapsed: 3 * time.Second},
		}
		if !slices.Equal(st, want) {
			t.Fatalf("Stats() after reset =\n%+v\nwant\n%+v", st, want)
		}
		if u := st[1].Utilization(); u != 0.5 {
			t.Errorf("sem utilization after reset %v, want 0.5", u)
		}
	})
}

func TestUtilizationIsZeroWithoutElapsedTime(t *testing.T) {
	if u := (Stats{Capacity: 1, Hold: time.Second}).Utilization(); u != 0 {
		t.Fatalf("Utilization() = %v, want 0", u)
	}
}

func TestOnWaitReportsOnlyQueuedResources(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSet(t, 0, mutexes("a", "b", "c", "d")...)
		clock := newFakeClock()
		s.SetClock(clock.Now)
		t0 := clock.Now()
		holdB := mustAcquire(t, s, Claim{1, 1})
		holdD := mustAcquire(t, s, Claim{3, 1})

		type call struct {
			name     string
			weight   int64
			from, to time.Duration
		}
		var calls []call
		done := make(chan error, 1)
		go func() {
			g, err := s.Acquire(context.Background(), []Claim{{0, 1}, {1, 1}, {2, 1}, {3, 1}}, 0, func(id ID, w int64, from, to time.Time) {
				calls = append(calls, call{s.Name(id), w, from.Sub(t0), to.Sub(t0)})
			})
			if err == nil {
				g.Release()
			}
			done <- err
		}()
		synctest.Wait() // a taken, queued on b at 0
		clock.Advance(time.Second)
		holdB.Release() // b granted at 1s, c free, queued on d at 1s
		synctest.Wait()
		clock.Advance(4 * time.Second)
		holdD.Release() // d granted at 5s
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		want := []call{{"b", 1, 0, time.Second}, {"d", 1, time.Second, 5 * time.Second}}
		if !slices.Equal(calls, want) {
			t.Fatalf("onWait calls %+v, want %+v", calls, want)
		}
	})
}
