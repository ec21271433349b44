package resources

import "time"

// Stats are one resource's counters since NewSet (or ResetStats).
type Stats struct {
	Name     string
	Capacity int64
	// Acquisitions counts grants of this resource.
	Acquisitions int64
	// Contended counts the grants that had to queue first.
	Contended int64
	// Cancelled counts waits on this resource given up on cancellation.
	Cancelled int64
	// Wait is the total time queued by the Contended grants (cancelled
	// waits are not included), and MaxWait the longest of them.
	Wait    time.Duration
	MaxWait time.Duration
	// Hold is the total weight × time held, as a Duration; it includes the
	// holds still in progress, up to now.
	Hold time.Duration
	// InUse is the number of units held now.
	InUse int64
	// Queued is the number of requests queued on this resource now.
	Queued int
	// Elapsed is the time since NewSet or ResetStats.
	Elapsed time.Duration
}

// Utilization returns Hold / (Capacity × Elapsed), from 0 to 1; it is 0 when
// Elapsed is 0.
func (st Stats) Utilization() float64 {
	if st.Elapsed <= 0 || st.Capacity <= 0 {
		return 0
	}
	return float64(st.Hold) / (float64(st.Capacity) * float64(st.Elapsed))
}

// counters are the Stats kept per resource, guarded by Set.mu.
type counters struct {
	acquisitions, contended, cancelled int64
	wait, maxWait                      time.Duration
	hold                               time.Duration // holds released since epoch
	// openStart is the sum over current holders of weight × (start - epoch),
	// so that the open holds at now total inUse × (now - epoch) - openStart.
	openStart time.Duration
}

// Stats returns every resource's counters, in ID order.
func (s *Set) Stats() []Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	elapsed := now.Sub(s.epoch)
	out := make([]Stats, len(s.res))
	for i := range s.res {
		r := &s.res[i]
		out[i] = Stats{
			Name:         r.name,
			Capacity:     r.capacity,
			Acquisitions: r.st.acquisitions,
			Contended:    r.st.contended,
			Cancelled:    r.st.cancelled,
			Wait:         r.st.wait,
			MaxWait:      r.st.maxWait,
			Hold:         r.st.hold + time.Duration(r.inUse)*elapsed - r.st.openStart,
			InUse:        r.inUse,
			Queued:       len(r.waiters),
			Elapsed:      elapsed,
		}
	}
	return out
}

// ResetStats restarts every resource's counters from now. Units held across
// the reset count as held from now.
func (s *Set) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetStatsLocked()
}

func (s *Set) resetStatsLocked() {
	s.epoch = s.now()
	for i := range s.res {
		s.res[i].st = counters{}
	}
}
