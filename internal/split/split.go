// Package split runs a loop over [0, n) as contiguous chunks at once, one
// a usable core, for the CPU key setups and provers' element-wise work.
package split

import (
	"runtime"
	"sync"
)

// Run runs f over [0, n) in contiguous chunks [lo, hi) that cover it
// once: at most GOMAXPROCS of them, and at most n/minChunk (so all but
// the last have minChunk elements or more). It returns when every chunk is done. A single chunk runs
// on the caller's goroutine; with n <= 0, f is not called.
func Run(n, minChunk int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	tasks := min(runtime.GOMAXPROCS(0), max(1, n/max(minChunk, 1)))
	if tasks <= 1 {
		f(0, n)
		return
	}
	chunk := (n + tasks - 1) / tasks
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}
