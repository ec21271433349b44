package cuda

import (
	"math/bits"
	"os"
	"strconv"
)

// The MSM windows are plain Go, outside the cuda build tag, so that the
// device memory estimate (stages/groth16/keys) sizes the kernels' scratch
// with the windows the kernels take.

var windowOverride = func() int {
	c, _ := strconv.Atoi(os.Getenv("PROOFLANE_CUDA_MSM_C"))
	return c
}()

// Window is the Pippenger window size used for n points.
func Window(n int) int {
	if windowOverride >= 4 && windowOverride <= 24 {
		return windowOverride
	}
	// log2(n) - 3, at most 16: on the H200, c = 16 was the fastest of the
	// sizes tried (14..20) for G1 at 2^20 and 2^24 (v4 and v5 kernels).
	// With the v5 kernels c = 17 is 12-15% faster at 2^22 (G1 and G2) but
	// 12% slower at 2^23, so 16 stays until that is understood
	// (docs/cuda-perf-notes.md, v5).
	l := bits.Len(uint(n))
	return min(max(l-4, 8), 16)
}

// TableWindow is the window of a precomputed table for n bases: log2(n)
// - 2 above 2^20 points, log2(n) - 1 up to 2^20, between 8 and 22. With a
// table every window's digits share one set of 2^(c-1) buckets, so a
// wider window costs one bucket reduction, not one a window: the
// additions are about n·ceil(256/c) + 2^c, least near c = log2(n) - 2
// (2^24: c = 22, 12 rows, 201M + 4M additions against 268M for plain c =
// 16). Up to 2^20 points the reduction is latency-bound, a few threads
// deep, and costs less than its additions say: on the H200, G1 2^20 over
// a c = 19 table took 7.94-8.02 ms against 8.34-8.40 at c = 18, G2 28.5
// against 29.2 (docs/cuda-perf-notes.md, v14).
func TableWindow(n int) int {
	l := bits.Len(uint(n))
	if l <= 21 {
		return max(l-2, 8)
	}
	return min(l-3, 22)
}
