package lockstats

import (
	"strings"
	"testing"
	"time"
)

// Two holders of a semaphore of capacity 2, overlapping for 10 of the 30 ms
// it was held, then a third after a gap; one waited.
func TestComputeFromHandMadeHolds(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	holds := []Hold{
		{Resource: "sem", Capacity: 2, Weight: 1, Granted: at(0), Released: at(20)},
		{Resource: "sem", Capacity: 2, Weight: 1, Granted: at(10), Released: at(30), Wait: 4 * time.Millisecond},
		{Resource: "sem", Capacity: 2, Weight: 1, Granted: at(50), Released: at(60)},
		{Resource: "m", Capacity: 1, Weight: 1, Granted: at(0), Released: at(10)},
		{Resource: "m", Capacity: 1, Weight: 1, Granted: at(10), Released: at(20), Wait: 10 * time.Millisecond},
	}
	stats, err := Compute(holds, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 2 || stats[0].Resource != "m" || stats[1].Resource != "sem" {
		t.Fatalf("stats for %v, want m then sem", stats)
	}
	m, sem := stats[0], stats[1]
	// sem: held [0,30) and [50,60) = 40 ms; hold time 20+20+10 = 50 ms.
	if sem.Holds != 3 || sem.Held != 40*time.Millisecond || sem.MaxHolders != 2 {
		t.Errorf("sem holds %d held %v max %d, want 3, 40ms, 2", sem.Holds, sem.Held, sem.MaxHolders)
	}
	if sem.MeanHolders != 1.25 || sem.Utilization != 0.4 {
		t.Errorf("sem mean holders %v util %v, want 1.25 and 0.4", sem.MeanHolders, sem.Utilization)
	}
	if sem.Waits != 1 || sem.WaitMean != 4*time.Millisecond || sem.Contention != 1.0/3 {
		t.Errorf("sem waits %d mean %v contention %v", sem.Waits, sem.WaitMean, sem.Contention)
	}
	// m: back to back, never two at once.
	if m.MaxHolders != 1 || m.MeanHolders != 1 || m.Held != 20*time.Millisecond || m.Contention != 0.5 || m.WaitMax != 10*time.Millisecond {
		t.Errorf("m = %+v", m)
	}
	var b strings.Builder
	if err := WriteTable(&b, stats); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || strings.Fields(lines[2])[0] != "sem" || strings.Fields(lines[2])[4] != "1.25" {
		t.Errorf("table:\n%s", b.String())
	}
}

func TestComputeRejectsAHoldReleasedBeforeItsGrant(t *testing.T) {
	t0 := time.Now()
	_, err := Compute([]Hold{{Resource: "gpu.0.mem", Granted: t0, Released: t0.Add(-time.Second)}}, time.Second)
	if err == nil || !strings.Contains(err.Error(), `resource "gpu.0.mem": hold released at`) {
		t.Fatalf("err = %v", err)
	}
}
