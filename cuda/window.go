package cuda

import (
	"math"
	"math/bits"
)

// The MSM windows and scratch are plain Go, outside the cuda build tag,
// so that the device memory model (package device/cuda) sizes the
// kernels' scratch with the windows the kernels take, in every build.

// Window is the Pippenger window size of an MSM of n points over plain
// bases, unless Options.MSMWindow forces another (Options.Window).
func Window(n int) int {
	// 20 from 2^23 points, else log2(n) - 3 and at most 16. On the H200
	// (docs/design/msm.md, "Windows"), c = 20 against 16:
	// G1 2^24 106.0 against 117.8 ms, 2^25 198.3 / 232.9, 2^26 382.3 /
	// 465.2 (21 and 22 lose: their bucket reduction grows faster than
	// their additions shrink); G2 2^23 174.6 / 187.6, 2^24 322.3 /
	// 371.6. At 2^23 G1 is level (59.5 / 60.6), at 2^22 c = 16 and 17
	// are the fastest of 16..20 for both.
	l := bits.Len(uint(n))
	if l > 23 {
		return 20
	}
	return min(max(l-4, 8), 16)
}

// XYZZ point sizes on the device, for MSMScratch: 4 coordinates of Fp
// (G1) or Fp2 (G2).
const (
	G1XYZZBytes = 4 * 48
	G2XYZZBytes = 4 * 96
)

// msmSortPerWindowMin is the kernels' MSM_SORT_PER_WINDOW_MIN
// (cuda/csrc/msm.cuh): from 2^23 points a plain MSM sorts a window at a
// time.
const msmSortPerWindowMin = 1 << 23

// MSMScratch is the device scratch an MSM of n points with window c takes
// with the XYZZ segments, the accumulation of every G1 MSM and of the G2
// MSMs whose batch-affine scratch is over its cap: what msm and
// accumulate_segments (cuda/csrc/msm_impl.cuh) allocate, counted as they
// allocate it, for points of xyzz bytes in XYZZ form (G1XYZZBytes,
// G2XYZZBytes). cub's sorts and scan are counted as two 4-byte buffers
// an item and 1 MiB each, an upper bound of what they ask for.
func MSMScratch(n, c int, table bool, xyzz int) uint64 {
	const cubFloor = 1 << 20
	x := uint64(xyzz)
	w := uint64((256 + c - 1) / c)
	half := uint64(1) << (c - 1)
	wb := w
	if table {
		wb = 1
	}
	nb := wb * half
	total := uint64(n) * w
	run := total
	if !table && n >= msmSortPerWindowMin {
		run = uint64(n)
	}
	b := 16*total + 8*run + cubFloor // keys and values, in and out; the sort
	b += 8*nb + nb*x                 // start, end; buckets
	maxseg := total/uint64(msmSegCap(total, nb, table)) + nb
	// cnt, off, maxcnt; the scan; partial, seg_bucket; the segments'
	// order (len, len_sorted, ids, order) and its sort
	accum := 8*nb + 4 + cubFloor + maxseg*(x+4) + 16*maxseg + 8*maxseg + cubFloor
	// The window reduction's planes and terms, allocated once the
	// accumulation has freed its scratch (the pool reuses it): never
	// more than it, as maxseg >= nb.
	k := half / windowChunk(half, wb)
	terms := uint64(bits.TrailingZeros64(k)) + 1
	windows := (3*k + terms) * wb * x
	return b + max(accum, windows)
}

// windowChunk is the kernels' msm_window_chunk (cuda/csrc/msm.cuh): the
// buckets of a chunk of the window reduction, for wb windows of half
// buckets.
func windowChunk(half, wb uint64) uint64 {
	l := uint64(2)
	for l < 16 && l<<16 <= half*wb {
		l *= 2
	}
	return min(l, half)
}

// msmSegCap is the kernels' msm_seg_cap (cuda/csrc/msm.cuh): the most
// points a segment of the accumulation takes.
func msmSegCap(total, nb uint64, table bool) uint32 {
	if table {
		return 128
	}
	m := float64(total) / float64(nb)
	k := math.Floor(m/128 + 0.5)
	if k < 1 {
		k = 1
	}
	c := (m + 4*math.Sqrt(m)) / k
	c = min(max(c, 32), 4096)
	return uint32(c) + 1
}

// TableWindow is the window of a precomputed table for n bases. With a
// table every window's digits share one set of 2^(c-1) buckets, so a
// wider window costs one bucket reduction, not one a window: the
// additions are about n·ceil(256/c) + 2^c, and the rows, ceil(256/c),
// fall only at some c (16 rows at c = 16 and 17, 14 at 19, 13 at 20, 12
// at 22). Measured on the H200 with the bit-plane window reduction
// (docs/design/msm.md), G1 / G2 ms:
//
//	2^16: c = 15 2.50, 16 1.71, 20 2.10 (G1)
//	2^18: c = 17 3.76 / 13.7, 19 3.70 / 13.3, 20 3.08 / 13.6
//	2^20: c = 19 7.85 / 27.9, 20 7.49-7.60 / 27.1-27.2
//	2^22: c = 19 27.1, 20 25.3, 22 25.4 (G1)
//	2^24: c = 20 96.4, 22 90.1 (G1)
//
// So 16 from 2^16 points, 20 from 2^18, 21 at 2^23 and 22 from 2^24;
// below 2^16 (unmeasured) log2(n) - 1, at least 8.
func TableWindow(n int) int {
	l := bits.Len(uint(n)) // log2(n) + 1 for a power of two
	switch {
	case l <= 16:
		return max(l-2, 8)
	case l <= 18:
		return 16
	case l <= 23:
		return 20
	}
	return min(l-3, 22)
}
