// msm.cuh: the per-thread pieces of the Pippenger MSM, shared by the CUDA
// kernels (msm.cu) and the host emulation the CPU tests run
// (cuda/internal/hostcheck).
//
// Pipeline: scalars (canonical, 255 bits) are cut into W = ceil(256/c)
// signed c-bit digits d in [-2^(c-1), 2^(c-1)]; each nonzero digit of
// scalar i in window w gives a pair (key, val = i with the sign in bit
// 31), window w's pairs at [w*n, (w+1)*n). The pairs are radix-sorted by
// key, all at once (key = w*2^(c-1) + |d|-1) or, for large MSMs, each
// window's on their own (key = |d|-1: c-bit keys, two radix passes
// instead of three; msm_sort_runs); each bucket's run
// is cut evenly into segments of at most msm_seg_cap points that threads
// accumulate (mixed XYZZ additions); segments are summed per bucket; each window's
// buckets are reduced as sum_j j*B_j in K chunks of running sums; the
// chunks are summed per window and the host combines the windows.
//
// With a precomputed table of the bases' multiples 2^(cw)·P (fixed bases,
// a proving key's: built once per key and device) every window's digits
// go into one set of 2^(c-1) buckets, so one window is reduced instead of
// W, and the window can be wider (fewer windows: fewer additions).
#pragma once
#include <math.h>
#include "curve.cuh"

namespace pl {

// bits [off, off+len) of a 256-bit little-endian value, len <= 32, zero
// beyond bit 255.
PL_HD uint32_t scalar_bits(const uint32_t s[8], int off, int len) {
  int limb = off >> 5, sh = off & 31;
  uint64_t lo = limb < 8 ? s[limb] : 0;
  uint64_t hi = limb + 1 < 8 ? s[limb + 1] : 0;
  uint64_t w = (lo | (hi << 32)) >> sh;
  return (uint32_t)(w & ((len == 32) ? 0xffffffffull : ((1ull << len) - 1)));
}

PL_HD int msm_windows(int c) { return (256 + c - 1) / c; }

// How the pairs are sorted: in runs of `run` pairs (sorted on their own),
// keys wstride*w + |d|-1 for window w, and `limit`, the sentinel key of
// a zero digit, which sorts after every bucket. Bucket b of a key k in
// run j is j*2^(c-1) + k (msm_bounds).
//   - Plain bases, one sort (n < per_window_min): run = n*W, wstride =
//     2^(c-1), limit = W*2^(c-1).
//   - Plain bases, a sort a window (n >= per_window_min, 2^23 in the
//     kernels): run = n, wstride = 0, limit = 2^(c-1). Sorting each
//     window on its own saves a radix pass (c-bit keys), but 16 sorts of
//     n pairs cost more in launches than that pass at 2^20 to 2^22; the
//     sort took 0.95x at 2^24 and 0.84x at 2^26 on the H200.
//   - Precomputed bases: every window's digits in one set of buckets:
//     run = n*W, wstride = 0, limit = 2^(c-1).
constexpr uint64_t MSM_SORT_PER_WINDOW_MIN = 1u << 23;  // the kernels' per_window_min
struct MsmSort {
  uint64_t run;
  uint32_t wstride, limit;
};
PL_HD MsmSort msm_sort_runs(uint64_t n, int c, bool table, uint64_t per_window_min) {
  const uint32_t half = 1u << (c - 1), W = (uint32_t)msm_windows(c);
  MsmSort r;
  if (table) {
    r.run = n * W, r.wstride = 0, r.limit = half;
  } else if (n >= per_window_min) {
    r.run = n, r.wstride = 0, r.limit = half;
  } else {
    r.run = n * W, r.wstride = half, r.limit = W * half;
  }
  return r;
}

// Signed-digit recoding of one canonical scalar. For each window w writes
// keys[w*stride] and vals[w*stride]: key w*o.wstride + |d|-1, or o.limit
// for a zero digit, and the sign of the digit in bit 31 of the value.
//   - Plain bases (table_n == 0): window w has its own buckets, value =
//     index.
//   - Precomputed bases (table_n = N, the length of a row of the table
//     msm_precompute_row fills: table[w*N + i] = 2^(cw)·P_i): one set of
//     buckets for every window, value = w*N + index, the point that
//     already carries the window's weight.
PL_HD void msm_recode(const uint32_t s[8], uint32_t index, int c, uint32_t* keys,
                      uint32_t* vals, size_t stride, size_t table_n, MsmSort o) {
  const int W = msm_windows(c);
  const uint32_t half = 1u << (c - 1);
  uint32_t carry = 0;
  for (int w = 0; w < W; w++) {
    uint32_t raw = scalar_bits(s, w * c, c) + carry;
    uint32_t key, neg = 0, mag;
    if (raw > half) {
      mag = (1u << c) - raw;
      neg = 1;
      carry = 1;
    } else {
      mag = raw;
      carry = 0;
    }
    uint32_t point = table_n ? (uint32_t)((size_t)w * table_n + index) : index;
    key = mag == 0 ? o.limit : (uint32_t)w * o.wstride + (mag - 1);
    keys[(size_t)w * stride] = key;
    vals[(size_t)w * stride] = point | (neg << 31);
  }
}

// Sorted pairs [i, i+4) (those below total) in the bucket bounds:
// start[b] and end[b] (one past) of bucket b's run of pairs, for the
// pairs sorted as o says. k holds keys[i..i+4), read by the caller (a
// 16-byte load on the device); the neighbours keys[i-1] and keys[i+4]
// are read here. One division a quad instead of two a key, and one
// load: k_bounds 2.1-2.3x on the H100 (docs/design/msm.md).
PL_HD void msm_bounds4(const uint32_t* keys, uint32_t i, const uint32_t k[4], uint32_t total,
                       MsmSort o, uint32_t half, uint32_t* start, uint32_t* end) {
  const uint32_t run = (uint32_t)o.run, n = total - i < 4 ? total - i : 4;
  uint32_t j = i / run, pos = i - j * run;
  uint32_t prev = i ? keys[i - 1] : o.limit;  // used only where pos > 0
  for (uint32_t t = 0; t < n; t++) {
    const uint32_t key = k[t];
    // total is a whole number of runs: the last pair ends its run
    const uint32_t next = t + 1 < n ? k[t + 1] : i + n < total ? keys[i + n] : key;
    if (key < o.limit) {  // not a zero digit's sentinel
      const uint32_t b = j * half + key;
      if (pos == 0 || prev != key) start[b] = i + t;
      if (pos + 1 == run || next != key) end[b] = i + t + 1;
    }
    prev = key;
    if (++pos == run) pos = 0, j++;
  }
}

// 2^c·p, the step from one row of a precomputed table to the next (c
// doublings; infinity stays infinity).
template <class F>
PL_HD XYZZ<F> msm_precompute_step(const Affine<F>& p, int c) {
  XYZZ<F> acc = XYZZ<F>::from_affine(p);
  for (int i = 0; i < c; i++) acc = acc.dbl();
  return acc;
}

// The most points a segment (one accumulation thread) takes. A warp runs
// as long as its longest segment, so a bucket's segments should be of
// one length. Plain bases: from the mean bucket length m = total / nb
// (uniform digits: each bucket's length is m ± sqrt(m)), k = round(m /
// 128) segments a bucket (at least 1) and a cap of (m + 4 sqrt(m)) / k,
// so that nearly every bucket is cut into exactly k segments when k is
// small; with the fixed cap of 128 a 2^22 MSM (m = 128) cut half its
// buckets into 128 points and a remainder and ran 1.18x slower (G1 and
// G2). Over a table (table != 0) the fixed cap of 128 measured best
// (2-8% ahead of the plain rule at 2^20 and 2^22 with c = 18, equal at
// 2^24), for a reason not yet known (docs/design/msm.md).
inline uint32_t msm_seg_cap(uint64_t total, uint32_t nb, bool table) {  // host
  if (table) return 128;
  const double m = (double)total / (double)nb;
  double k = (double)(uint64_t)(m / 128.0 + 0.5);
  if (k < 1) k = 1;
  double cap = (m + 4.0 * sqrt(m)) / k;
  if (cap < 32) cap = 32;
  if (cap > 4096) cap = 4096;
  return (uint32_t)cap + 1;
}

// Segment j of the cnt = ceil(len / cap) segments of a bucket holding
// pairs [start, end): the bucket is cut into segments whose lengths
// differ by at most one.
PL_HD void msm_segment(uint32_t start, uint32_t end, uint32_t j, uint32_t cnt, uint32_t* begin,
                       uint32_t* stop) {
  const uint64_t len = end - start;
  *begin = start + (uint32_t)(len * j / cnt);
  *stop = start + (uint32_t)(len * (j + 1) / cnt);
}

// Round r of the tree over a bucket's c segment partials (k_seg_tree):
// the live partials are [0, ceil(c / 2^r)); the upper part is added into
// the lower. True when partial i takes partial i + *newlen this round.
PL_HD bool msm_tree_step(uint32_t i, uint32_t c, int r, uint32_t* newlen) {
  const uint32_t len = (uint32_t)(((uint64_t)c + (1ull << r) - 1) >> r);
  *newlen = (uint32_t)(((uint64_t)c + (2ull << r) - 1) >> (r + 1));
  return i < len - *newlen;
}

// upper_bound(off[0..n), g) - 1: the bucket owning segment g.
PL_HD uint32_t find_bucket(const uint32_t* off, uint32_t n, uint32_t g) {
  uint32_t lo = 0, hi = n;  // first index with off[i] > g lies in [lo, hi]
  while (lo < hi) {
    uint32_t mid = (lo + hi) >> 1;
    if (off[mid] <= g)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

// Accumulate pairs [begin, end) of the sorted value array.
template <class F>
PL_HD XYZZ<F> msm_accumulate(const Affine<F>* bases, const uint32_t* vals, uint32_t begin,
                             uint32_t end) {
  XYZZ<F> acc = XYZZ<F>::inf();
  for (uint32_t k = begin; k < end; k++) {
    uint32_t v = vals[k];
    Affine<F> b = bases[v & 0x7fffffffu];
    acc.add_affine(b, (v >> 31) != 0);
  }
  return acc;
}

// The window reduction: a window's sum over its `half` buckets,
// sum_j (j+1)·B_j (bucket j, 0-based, holds the points of digit
// magnitude j+1), in additions only, about two a bucket.
//
// The buckets are cut into K chunks of L = 2^l: chunk k gives
// t_k = sum_i i·B_{kL+i} and s_k = sum_i B_{kL+i} (msm_chunk_sums), and
//   window sum = sum_k t_k + sum_k s_k + L·sum_k k·s_k.
// The last sum is the chunks' bit planes, sum_k k·s_k = sum_b 2^b·X_b,
// X_b the sum of the s_k whose index k has bit b set. A tree of log2(K)
// rounds (msm_plane_step, one addition a thread) sums T = sum t_k,
// S = sum s_k and every X_b; msm_plane_final multiplies X_b by 2^(b+l)
// (b+l doublings, the planes in parallel), and the log2(K) + 1 terms
// are summed. Multiplying each chunk's sum by its offset instead, ~c
// doublings a chunk, was 1.1-1.6x slower (docs/design/msm.md).
//
// A window's planes are 3K points (msm_planes_len): T in [0, K), S in
// [K, 2K), X_b in [2K + 2^b - 1, 2K + 2^(b+1) - 1).
PL_HD uint32_t msm_planes_len(uint32_t K) { return 3 * K; }

// log2 of a power of two.
PL_HD uint32_t msm_log2(uint32_t pow2) {
  uint32_t l = 0;
  while ((1u << l) < pow2) l++;
  return l;
}

// The terms msm_plane_final leaves a window: one a plane, and T + S.
PL_HD uint32_t msm_plane_terms(uint32_t K) { return msm_log2(K) + 1; }

// L for `windows` windows of `half` buckets: about 2^15 chunks in all,
// L from 2 to PL_WINDOW_CHUNK (16). The chunks' running sums are the
// reduction's longest chain (2L - 1 dependent additions); on the H200 2^15
// of them (about two thirds of the G1 kernel's wave) took the least time:
// one window of 2^18 buckets (G1 over a table at 2^20, c = 19) ran 0.2 ms
// faster at L = 8 than at 16, one of 2^19 (c = 20) and 16 of 2^15 (plain
// c = 16) 0.1-0.2 ms slower (docs/design/msm.md).
// cuda/window.go's windowChunk is the same.
#ifndef PL_WINDOW_CHUNK
#define PL_WINDOW_CHUNK 16
#endif
PL_HD uint32_t msm_window_chunk(uint32_t half, uint32_t windows) {
  const uint64_t buckets = (uint64_t)half * windows;
  uint32_t L = 2;
  while (L < PL_WINDOW_CHUNK && ((uint64_t)L << 16) <= buckets) L *= 2;
  return L < half ? L : half;
}

// Chunk [lo, lo+len) of a window's buckets: *t = sum_i i·B_{lo+i},
// *s = sum_i B_{lo+i}; len >= 1.
template <class F>
PL_HD void msm_chunk_sums(const XYZZ<F>* buckets, uint32_t lo, uint32_t len, XYZZ<F>* t,
                          XYZZ<F>* s) {
  XYZZ<F> run = XYZZ<F>::inf(), acc = XYZZ<F>::inf();
  for (uint32_t i = len - 1; i >= 1; i--) {
    run.add(buckets[lo + i]);
    acc.add(run);  // B_{lo+i} is in i of these
  }
  run.add(buckets[lo]);
  *t = acc;
  *s = run;
}

// Work items of the round whose live nodes number 2h (h = K >> (r+1) in
// round r): h each for T, S, the new plane X_{log2 h} and the planes of
// the earlier rounds.
PL_HD uint32_t msm_plane_items(uint32_t K, uint32_t h) {
  return h * (3 + (msm_log2(K) - 1 - msm_log2(h)));
}

// Item `item` of that round over a window's planes p: node i (of the 2h
// live) takes node i + h, whose indices k all have bit log2(h) set.
template <class F>
PL_HD void msm_plane_step(XYZZ<F>* p, uint32_t K, uint32_t h, uint32_t item) {
  const uint32_t comp = item / h, i = item % h;
  if (comp == 2) {  // X_{log2 h} = the S of the nodes with that bit set
    p[2 * K + h - 1 + i] = p[K + h + i];
    return;
  }
  XYZZ<F>* a = p;  // comp 0: T
  if (comp == 1) {
    a = p + K;
  } else if (comp > 2) {  // X_b for b = log2(h) + comp - 2, created earlier
    a = p + 2 * K + (2 * h << (comp - 3)) - 1;
  }
  XYZZ<F> v = a[i];
  v.add(a[i + h]);
  a[i] = v;
}

// Term b of a window's sum once the rounds are done (one node left):
// 2^(b+l)·X_b for b < log2(K), T + S for b = log2(K).
template <class F>
PL_HD XYZZ<F> msm_plane_final(const XYZZ<F>* p, uint32_t K, int l, uint32_t b) {
  if ((1u << b) >= K) {
    XYZZ<F> v = p[0];
    v.add(p[K]);
    return v;
  }
  XYZZ<F> v = p[2 * K + (1u << b) - 1];
  for (uint32_t d = 0; d < b + (uint32_t)l; d++) v = v.dbl();
  return v;
}

}  // namespace pl
