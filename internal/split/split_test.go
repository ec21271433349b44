package split

import (
	"runtime"
	"sync"
	"testing"
)

// Every index of [0, n) is visited once, in chunks no shorter than the
// minimum (but the last) and no more than GOMAXPROCS of them.
func TestRunCoversEachIndexOnceInBoundedChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct{ n, min int }{{0, 4096}, {1, 4096}, {4095, 4096}, {8192, 4096}, {100_003, 4096}, {10, 1}, {7, 0}} {
		seen := make([]int, c.n)
		var mu sync.Mutex
		var lens []int
		Run(c.n, c.min, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
			mu.Lock()
			lens = append(lens, hi-lo)
			mu.Unlock()
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n %d min %d: index %d visited %d times", c.n, c.min, i, s)
			}
		}
		if len(lens) > 4 {
			t.Errorf("n %d min %d: %d chunks on 4 cores", c.n, c.min, len(lens))
		}
		if c.n == 0 && len(lens) != 0 {
			t.Errorf("n 0: f called %d times", len(lens))
		}
		short := 0
		for _, l := range lens {
			if l < c.min && l < c.n {
				short++
			}
		}
		if short > 1 {
			t.Errorf("n %d min %d: chunks %v, %d shorter than the minimum", c.n, c.min, lens, short)
		}
	}
}
