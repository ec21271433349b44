// msm_impl.cuh: the MSM and batch-addition kernels, templated over the
// scalar field Fr and the coordinate field F (a curve's Fp for G1, Fp2
// for G2; curves.cuh); each msm_<curve>_g<G>.cu instantiates one curve's
// group (msm_entry.cuh).
//
// The kernels call one copy of the Fp multiplication instead of inlining
// it (PL_MUL_CALL): an inlined mixed addition is ~10 multiplications of
// ~350 instructions. On the H200 the calls were faster for G1 (2^24: 158
// ms against 172 inlined) and, once the operands went by value, for G2
// too (2^20: 50.8 ms against 54.4; docs/design/field-arithmetic.md).
#pragma once
#define PL_MUL_CALL 1
#include <cub/cub.cuh>
#include <type_traits>
#include "affine.cuh"
#include "common.cuh"
#include "msm.cuh"
#include "msm_affine.cuh"
#include "msm_entry.cuh"
#include "vec.cuh"

namespace pl {
namespace msmk {
namespace {  // internal linkage: each instantiating .cu has its own copy


// PL_SEG (a fixed segment cap instead of msm_seg_cap's) and PL_G1_BLOCKS
// exist for A/B builds of the kernels (scripts/kernel-variants.sh); the
// defaults are the measured best. PL_WINDOW_CHUNK (msm.cuh) too.
#ifndef PL_G1_BLOCKS
#define PL_G1_BLOCKS 5
#endif
// k_bounds's blocks at most (a grid-stride loop past them: 8 a
// multiprocessor of the H200's 132); 0: one thread a quad of keys. The
// two time the same on the H100; the tests ran on the cap.
#ifndef PL_BOUNDS_BLOCKS
#define PL_BOUNDS_BLOCKS 1056
#endif
uint32_t seg_cap(uint64_t total, uint32_t nb, bool table) {
#ifdef PL_SEG
  (void)total, (void)nb, (void)table;
  return PL_SEG;
#else
#ifdef PL_SEG_TABLE
  if (table) return PL_SEG_TABLE;
#endif
  return msm_seg_cap(total, nb, table);
#endif
}
// PL_SEG_SORT=0 runs the segments in bucket order instead of longest
// first (the A/B's before; k_seg_order).
#ifndef PL_SEG_SORT
#define PL_SEG_SORT 1
#endif
constexpr unsigned HEAVY = 128;      // threads per block, point kernels

// The digits of scalar idx[i] (of scalar i when idx is null), for the
// point of that index, into column i of keys and vals.
template <class Fr>
__global__ void k_recode(const Fr* scalars, const uint32_t* idx, size_t n, int mont, int c,
                         size_t table_n, MsmSort o, uint32_t* keys, uint32_t* vals) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t p = idx ? idx[i] : (uint32_t)i;
    Fr s = scalars[p];
    if (mont) s = s.from_mont();
    msm_recode(s.v, p, c, keys + i, vals + i, n, table_n, o);
  }
}

// Whether scalar i is of class want (scalar_class).
template <class Fr>
struct ClassAt {
  const Fr* v;
  Fr one, minus;
  ScalarClass want;
  __device__ bool operator()(uint32_t i) const { return scalar_class(v[i], one, minus) == want; }
};

// The indices of the scalars of v[0..n) that pick selects, in order, into
// idx (room for n: a vector changed since the caller counted it must not
// write past it), checking that there are want of them.
template <class Fr>
int gather(pl_stream* s, Scratch& sc, size_t n, ClassAt<Fr> pick, size_t want, uint32_t* idx) {
  uint32_t* count;
  PL_TRY(sc.alloc(&count, 1));
  cub::CountingInputIterator<uint32_t> in(0);
  size_t temp_bytes = 0;
  PL_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, in, idx, count, (int)n, pick, s->s));
  uint8_t* temp;
  PL_TRY(sc.alloc(&temp, temp_bytes));
  PL_CHECK(cub::DeviceSelect::If(temp, temp_bytes, in, idx, count, (int)n, pick, s->s));
  PL_LAUNCHED();
  uint32_t got = 0;
  PL_CHECK(cudaMemcpyAsync(&got, count, sizeof(got), cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  return got == want ? 0 : PL_ERR_ARG;
}

// Marks the units that are -1: bit 31 of their index, as the sums read it.
template <class Fr>
__global__ void k_unit_signs(const Fr* v, Fr minus, uint32_t* idx, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x)
    if (v[idx[i]] == minus) idx[i] |= 1u << 31;
}

__global__ void k_bounds(const uint32_t* keys, uint32_t total, MsmSort o, uint32_t half,
                         uint32_t* start, uint32_t* end) {
  const bool aligned = ((uintptr_t)keys & 15) == 0;
  const uint32_t quads = (total + 3) / 4;
  for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
    const uint32_t i = 4 * q;
    uint32_t k[4] = {0, 0, 0, 0};
    if (aligned && i + 4 <= total) {
      const uint4 v = reinterpret_cast<const uint4*>(keys)[q];
      k[0] = v.x, k[1] = v.y, k[2] = v.z, k[3] = v.w;
    } else {
      for (uint32_t t = 0; t < 4 && i + t < total; t++) k[t] = keys[i + t];
    }
    msm_bounds4(keys, i, k, total, o, half, start, end);
  }
}

// cnt[b], the segments of bucket b, and *maxcnt their maximum (zeroed
// before), which bounds the rounds of k_seg_tree that do anything.
__global__ void k_segcount(const uint32_t* start, const uint32_t* end, uint32_t nb, uint32_t seg,
                           uint32_t* cnt, uint32_t* maxcnt) {
  uint32_t most = 0;
  for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < nb; b += gridDim.x * blockDim.x) {
    const uint32_t c = (end[b] - start[b] + seg - 1) / seg;
    cnt[b] = c;
    most = c > most ? c : most;
  }
  most = __reduce_max_sync(0xffffffffu, most);
  if ((threadIdx.x & 31) == 0 && most) atomicMax(maxcnt, most);
}

// Blocks per SM the accumulation kernel is built for. G1: 5, i.e. at
// most 96 registers, 20 warps per SM; G2 (Fp2 values, ~220 registers): 1,
// as caps of 168 or 128 registers ran slower (docs/design/msm.md). Both
// curves take BLS12-381's figures.
template <class F>
struct SegBlocks {
  static constexpr int value = F::DEGREE == 1 ? PL_G1_BLOCKS : 1;
};

// Segment g's bucket into seg_bucket[g] (for k_segments and k_seg_tree)
// and its length into len[g], 0 for the slots past the last segment;
// order[g] = g, for k_segments' order after the sort by length.
__global__ void k_seg_order(const uint32_t* start, const uint32_t* end, const uint32_t* off,
                            const uint32_t* cnt, uint32_t nb, uint32_t maxseg,
                            uint32_t* seg_bucket, uint32_t* len, uint32_t* order) {
  const uint32_t total = off[nb - 1] + cnt[nb - 1];
  for (uint32_t g = blockIdx.x * blockDim.x + threadIdx.x; g < maxseg;
       g += gridDim.x * blockDim.x) {
    uint32_t l = 0;
    if (g < total) {
      const uint32_t b = find_bucket(off, nb, g);
      uint32_t begin, stop;
      msm_segment(start[b], end[b], g - off[b], cnt[b], &begin, &stop);
      seg_bucket[g] = b;
      l = stop - begin;
    }
    len[g] = l;
    order[g] = g;
  }
}

// The accumulation kernel: each thread sums one segment of a bucket,
// the segments taken in `order` (longest first: a warp runs as long as
// its longest lane, so lanes of one length waste none) with their
// buckets from k_seg_order, or, order == nullptr, in bucket order,
// finding each one's bucket and keeping it in seg_bucket[g] for
// k_seg_tree.
template <class F>
__global__ void __launch_bounds__(HEAVY, SegBlocks<F>::value)
    k_segments(const Affine<F>* bases, const uint32_t* vals, const uint32_t* start,
               const uint32_t* end, const uint32_t* off, const uint32_t* cnt, uint32_t nb,
               uint32_t maxseg, const uint32_t* order, XYZZ<F>* partial, uint32_t* seg_bucket) {
  const uint32_t total = off[nb - 1] + cnt[nb - 1];
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < maxseg;
       t += gridDim.x * blockDim.x) {
    const uint32_t g = order ? order[t] : t;
    if (g >= total) continue;
    uint32_t b;
    if (order) {
      b = seg_bucket[g];
    } else {
      b = find_bucket(off, nb, g);
      seg_bucket[g] = b;
    }
    uint32_t begin, stop;
    msm_segment(start[b], end[b], g - off[b], cnt[b], &begin, &stop);
    partial[g] = msm_accumulate<F>(bases, vals, begin, stop);
  }
}

// Round r of the per-bucket tree over segment partials (msm_tree_step),
// halving the live ones. Long buckets (skewed scalars, the top window)
// take log2 rounds instead of a serial sum. The host launches the rounds
// an adversarial input could need; those past the largest count
// (*maxcnt) return at once: with uniform digits 2-3 rounds work, of 17
// at 2^24 (docs/design/msm.md).
template <class F>
__global__ void __launch_bounds__(HEAVY) k_seg_tree(XYZZ<F>* partial, const uint32_t* seg_bucket,
                                                    const uint32_t* off, const uint32_t* cnt,
                                                    uint32_t nb, uint32_t maxseg,
                                                    const uint32_t* maxcnt, int r) {
  if ((1ull << r) >= *maxcnt) return;
  const uint32_t total = off[nb - 1] + cnt[nb - 1];
  for (uint32_t g = blockIdx.x * blockDim.x + threadIdx.x; g < total && g < maxseg;
       g += gridDim.x * blockDim.x) {
    const uint32_t b = seg_bucket[g];
    uint32_t newlen;
    if (msm_tree_step(g - off[b], cnt[b], r, &newlen)) {
      XYZZ<F> a = partial[g];
      a.add(partial[g + newlen]);
      partial[g] = a;
    }
  }
}

template <class F>
__global__ void k_bucket_gather(const XYZZ<F>* partial, const uint32_t* off, const uint32_t* cnt,
                                uint32_t nb, XYZZ<F>* buckets) {
  for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < nb; b += gridDim.x * blockDim.x)
    buckets[b] = cnt[b] ? partial[off[b]] : XYZZ<F>::inf();
}

// The window reduction's kernels (msm.cuh): the chunks' sums into each
// window's planes, one round of the planes' tree, the final terms.
template <class F>
__global__ void __launch_bounds__(HEAVY) k_chunk_sums(const XYZZ<F>* buckets, uint32_t half,
                                                      uint32_t K, uint32_t windows,
                                                      XYZZ<F>* planes) {
  const uint32_t len = half / K;
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < K * windows;
       t += gridDim.x * blockDim.x) {
    const uint32_t w = t / K, k = t % K;
    XYZZ<F>* p = planes + (size_t)w * msm_planes_len(K);
    msm_chunk_sums<F>(buckets + (size_t)w * half, k * len, len, p + k, p + K + k);
  }
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_plane_step(XYZZ<F>* planes, uint32_t K, uint32_t h,
                                                      uint32_t items, uint32_t windows) {
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < items * windows;
       t += gridDim.x * blockDim.x)
    msm_plane_step<F>(planes + (size_t)(t / items) * msm_planes_len(K), K, h, t % items);
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_plane_final(const XYZZ<F>* planes, uint32_t K, int l,
                                                       uint32_t terms, uint32_t windows,
                                                       XYZZ<F>* out) {
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < terms * windows;
       t += gridDim.x * blockDim.x)
    out[t] = msm_plane_final<F>(planes + (size_t)(t / terms) * msm_planes_len(K), K, l, t % terms);
}

// pts[g*stride + i] += pts[g*stride + i + newlen] for i < len - newlen
template <class F>
__global__ void __launch_bounds__(HEAVY) k_reduce_step(XYZZ<F>* pts, uint32_t groups,
                                                       uint32_t stride, uint32_t len,
                                                       uint32_t newlen) {
  const uint32_t per = len - newlen;
  const uint32_t total = per * groups;
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    uint32_t g = t / per, i = t % per;
    XYZZ<F> a = pts[(size_t)g * stride + i];
    a.add(pts[(size_t)g * stride + i + newlen]);
    pts[(size_t)g * stride + i] = a;
  }
}

template <class F>
int reduce_groups(pl_stream* s, XYZZ<F>* pts, uint32_t groups, uint32_t stride, uint32_t len) {
  while (len > 1) {
    uint32_t newlen = (len + 1) / 2;
    k_reduce_step<F><<<grid_for((size_t)(len - newlen) * groups, HEAVY), HEAVY, 0, s->s>>>(
        pts, groups, stride, len, newlen);
    PL_LAUNCHED();
    len = newlen;
  }
  return 0;
}

// Point v of a sum: bases[v], or with signs bases[v & 0x7fffffff]
// negated when bit 31 is set; an index past nbases sets *bad and adds
// nothing.
template <class F>
__device__ Affine<F> sum_point(const Affine<F>* bases, uint32_t nbases, uint32_t v, bool signs,
                               uint32_t* bad, bool* neg) {
  const uint32_t i = signs ? v & 0x7fffffffu : v;
  *neg = signs && (v >> 31) != 0;
  if (i < nbases) return bases[i];
  *bad = 1;
  Affine<F> z;
  z.x = F::zero();
  z.y = F::zero();
  return z;
}

// Thread t sums points idx[t], idx[t + threads], ... (sum_point): a warp
// reads 32 neighbouring indices at a time (sorted ones read neighbouring
// points). The next point is loaded before the addition of the current
// one, and the kernel has the accumulation's occupancy (SegBlocks).
template <class F>
__global__ void __launch_bounds__(HEAVY, SegBlocks<F>::value)
    k_sum_strided(const Affine<F>* bases, uint32_t nbases, const uint32_t* idx, size_t count,
                  bool signs, uint32_t threads, XYZZ<F>* out, uint32_t* bad) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  XYZZ<F> acc = XYZZ<F>::inf();
  if (t < count) {
    bool neg;
    Affine<F> next = sum_point(bases, nbases, idx[t], signs, bad, &neg);
    for (size_t i = t; i < count; i += threads) {
      const Affine<F> cur = next;
      const bool cur_neg = neg;
      if (i + threads < count) next = sum_point(bases, nbases, idx[i + threads], signs, bad, &neg);
      acc.add_affine(cur, cur_neg);
    }
  }
  out[t] = acc;
}

// *dst += *src, one thread.
template <class F>
__global__ void k_add_into(XYZZ<F>* dst, const XYZZ<F>* src) {
  XYZZ<F> a = *dst;
  a.add(*src);
  *dst = a;
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_precompute(const Affine<F>* row, size_t n, int c,
                                                      XYZZ<F>* out) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = msm_precompute_step<F>(row[i], c);
}

// Points a precomputation step takes at once: its temporaries are 240
// bytes a point for G1, 480 for G2.
constexpr size_t PRECOMPUTE_CHUNK = 1u << 21;

// Fills rows 1..W-1 of table (W = msm_windows(c), rows of n points, row 0
// the bases): table[w*n + i] = 2^c · table[(w-1)*n + i], affine.
// The buckets' sums by XYZZ segments: each bucket's run cut into
// segments of at most seg_cap points, a thread a segment, then a tree
// over each bucket's segments.
template <class F>
int accumulate_segments(pl_stream* s, Profile* prof, const Affine<F>* bases, const uint32_t* vals,
                        const uint32_t* start, const uint32_t* end, uint32_t nb, size_t n,
                        size_t total, size_t table_n, XYZZ<F>* buckets) {
  Scratch sc(s);
  uint32_t *cnt, *off, *maxcnt;
  PL_TRY(sc.alloc(&cnt, nb));
  PL_TRY(sc.alloc(&off, nb));
  PL_TRY(sc.alloc(&maxcnt, 1));
  PL_CHECK(cudaMemsetAsync(maxcnt, 0, sizeof(uint32_t), s->s));
  const uint32_t seg = seg_cap(total, nb, table_n != 0);
  k_segcount<<<grid_for(nb, 256), 256, 0, s->s>>>(start, end, nb, seg, cnt, maxcnt);
  PL_LAUNCHED();
  size_t scan_bytes = 0;
  PL_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cnt, off, (int)nb, s->s));
  uint8_t* scan_temp;
  PL_TRY(sc.alloc(&scan_temp, scan_bytes));
  PL_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, cnt, off, (int)nb, s->s));

  prof->mark(s, "segcount+scan");
  const uint32_t maxseg = (uint32_t)(total / seg + nb);
  XYZZ<F>* partial;
  uint32_t* seg_bucket;
  PL_TRY(sc.alloc(&partial, maxseg));
  PL_TRY(sc.alloc(&seg_bucket, maxseg));
  uint32_t* order = nullptr;
  if (PL_SEG_SORT) {
    // The segments sorted by length, longest first (a stable sort:
    // equal lengths stay in bucket order).
    uint32_t *len, *len_sorted, *ids;
    PL_TRY(sc.alloc(&len, maxseg));
    PL_TRY(sc.alloc(&len_sorted, maxseg));
    PL_TRY(sc.alloc(&ids, maxseg));
    PL_TRY(sc.alloc(&order, maxseg));
    k_seg_order<<<grid_for(maxseg, 256), 256, 0, s->s>>>(start, end, off, cnt, nb, maxseg,
                                                         seg_bucket, len, ids);
    PL_LAUNCHED();
    const int len_bits = 32 - __builtin_clz(seg);
    size_t sort_bytes = 0;
    PL_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, len, len_sorted, ids,
                                                       order, (int)maxseg, 0, len_bits, s->s));
    uint8_t* sort_temp;
    PL_TRY(sc.alloc(&sort_temp, sort_bytes));
    PL_CHECK(cub::DeviceRadixSort::SortPairsDescending(sort_temp, sort_bytes, len, len_sorted, ids,
                                                       order, (int)maxseg, 0, len_bits, s->s));
    prof->mark(s, "segment-order");
  }
  k_segments<F><<<grid_for(maxseg, HEAVY), HEAVY, 0, s->s>>>(bases, vals, start, end, off, cnt, nb,
                                                             maxseg, order, partial, seg_bucket);
  PL_LAUNCHED();
  prof->mark(s, "accumulate");
  // a bucket holds at most n points, n*W with a table (every window's
  // digit the same): ceil(that / seg) segments
  const uint64_t bound = ((table_n ? total : n) + seg - 1) / seg;
  for (int r = 0; (1ull << r) < bound; r++) {
    k_seg_tree<F><<<grid_for(maxseg, HEAVY), HEAVY, 0, s->s>>>(partial, seg_bucket, off, cnt, nb,
                                                               maxseg, maxcnt, r);
    PL_LAUNCHED();
  }
  prof->mark(s, "bucket-tree");
  k_bucket_gather<F><<<grid_for(nb, 256), 256, 0, s->s>>>(partial, off, cnt, nb, buckets);
  PL_LAUNCHED();
  return 0;
}

// The batch-affine accumulation's kernels (msm_affine.cuh), one thread
// per ba_pass1 / ba_pass2 / ba_up / ba_down call.
__global__ void k_ba_count(const uint32_t* len, uint32_t nb, int r, uint32_t* cnt) {
  for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < nb; b += gridDim.x * blockDim.x)
    cnt[b] = ba_count(len[b], r);
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_ba_pass1(BaLevel<F> L, uint32_t threads, F* tot) {
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < threads; t += gridDim.x * blockDim.x)
    ba_pass1(L, BA_SHAPE, t, threads, tot);
}

// Blocks per SM the second pass is built for: 3 caps G2's at 168
// registers (the compiler's choice was 190, 2 blocks), 2-3% faster in an
// A/B run; G1's takes 92 either way. PL_BA_BLOCKS for A/B builds.
#ifndef PL_BA_BLOCKS
#define PL_BA_BLOCKS 3
#endif
template <class F>
__global__ void __launch_bounds__(HEAVY, PL_BA_BLOCKS)
    k_ba_pass2(BaLevel<F> L, uint32_t threads, const F* inv) {
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < threads; t += gridDim.x * blockDim.x)
    ba_pass2(L, BA_SHAPE, t, threads, inv);
}

// G1's second pass (batch-affine levels, msm_affine.cuh's ba_pass2 for
// the other fields): its products inlined, and the next slot's points
// and prefix staged in shared memory by cp.async, in flight while this
// slot is summed and holding no registers. Walking down, slot k - 1's
// copies are issued once slot k's staged values are in registers; the
// src and vals entries are loaded one and two slots ahead. Measured
// against ba_pass2 with the products as calls: the level-0 pass 1.09x,
// level 1's 1.10x at 2^24 over a table (docs/design/msm.md).
__device__ __forceinline__ void cp16(uint4* dst, const void* src) {
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
template <class F>
__device__ __forceinline__ void ba_stage_point(const BaLevel<F>& L, uint32_t ref, uint4* st) {
  constexpr int P = sizeof(Affine<F>) / 16, E = sizeof(F) / 16;
  if (L.in_x) {
    const uint4 *x = (const uint4*)&L.in_x[ref], *y = (const uint4*)&L.in_y[ref];
    PL_UNROLL for (int i = 0; i < E; i++) cp16(st + i * HEAVY, x + i);
    PL_UNROLL for (int i = 0; i < E; i++) cp16(st + (E + i) * HEAVY, y + i);
    return;
  }
  const uint4* p = (const uint4*)(L.in ? &L.in[ref] : &L.bases[ref & 0x7fffffffu]);
  PL_UNROLL for (int i = 0; i < P; i++) cp16(st + i * HEAVY, p + i);
}
template <class F>
__device__ __forceinline__ void ba_stage(const BaLevel<F>& L, uint32_t s, uint32_t ra, uint32_t rb,
                                         uint32_t g, uint4* st) {
  constexpr int P = sizeof(Affine<F>) / 16, E = sizeof(F) / 16;
  ba_stage_point(L, ra, st);
  if (s & BA_PAIR) ba_stage_point(L, rb, st + P * HEAVY);
  const uint4* pp = (const uint4*)&L.pre[g];
  PL_UNROLL for (int i = 0; i < E; i++) cp16(st + (2 * P + i) * HEAVY, pp + i);
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void ba_unstage(const uint4* st, int at, int n, void* out) {
  uint4* o = (uint4*)out;
  PL_UNROLL for (int i = 0; i < n; i++) o[i] = st[(at + i) * HEAVY];
}
// The common kind's sum, a + b for a.x != b.x, given 1/(b.x - a.x),
// its products inlined (Fp: mont_sqr).
template <class F>
__device__ __forceinline__ Affine<F> ba_add_inline(const Affine<F>& a, const Affine<F>& b,
                                                  const F& inv_d) {
  const F l = F::mont_mul(b.y - a.y, inv_d);
  Affine<F> r;
  r.x = F::mont_sqr(l) - a.x - b.x;
  r.y = F::mont_mul(l, a.x - r.x) - a.y;
  return r;
}
template <class F>  // G1's (F::DEGREE == 1) only
__global__ void __launch_bounds__(HEAVY, PL_BA_BLOCKS)
    k_ba_pass2_staged(BaLevel<F> L, uint32_t threads, const F* inv) {
  constexpr int P = sizeof(Affine<F>) / 16, E = sizeof(F) / 16;
  __shared__ uint4 stage[(2 * P + E) * HEAVY];
  uint4* st = stage + threadIdx.x;
  const uint32_t T = threads, n = ba_slots(L);
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < T; t += gridDim.x * blockDim.x) {
    const uint32_t m = ba_taken(n, t, T, BA_SHAPE.slots);
    if (m == 0) continue;
    F acc = inv[t];
    uint32_t k = m - 1;
    uint32_t s0 = L.src[t + k * T], ra0 = ba_ref(L, s0 & ~BA_PAIR), rb0 = 0;
    if (s0 & BA_PAIR) rb0 = ba_ref(L, (s0 & ~BA_PAIR) + 1);
    ba_stage(L, s0, ra0, rb0, t + k * T, st);
    uint32_t s1 = 0, ra1 = 0, rb1 = 0, s2 = 0;
    if (k >= 1) {
      s1 = L.src[t + (k - 1) * T];
      ra1 = ba_ref(L, s1 & ~BA_PAIR);
      if (s1 & BA_PAIR) rb1 = ba_ref(L, (s1 & ~BA_PAIR) + 1);
    }
    if (k >= 2) s2 = L.src[t + (k - 2) * T];
    for (;; k--) {
      const uint32_t g = t + k * T;
      asm volatile("cp.async.wait_all;\n" ::: "memory");
      Affine<F> a, b;
      F pre;
      ba_unstage(st, 0, P, &a);
      if (s0 & BA_PAIR) ba_unstage(st, P, P, &b);
      ba_unstage(st, 2 * P, E, &pre);
      // the copies for slot k - 1 reuse the buffer just read: the reads
      // above were issued first and the copies' writes land only when
      // their loads return (and they are checked: TestMSMG1Affine)
      if (k >= 1) ba_stage(L, s1, ra1, rb1, g - T, st);
      uint32_t nra = 0, nrb = 0, ns = 0;
      if (k >= 2) {
        nra = ba_ref(L, s2 & ~BA_PAIR);
        if (s2 & BA_PAIR) nrb = ba_ref(L, (s2 & ~BA_PAIR) + 1);
      }
      if (k >= 3) ns = L.src[g - 3 * T];
      ba_signed(L, ra0, &a);
      if (s0 & BA_PAIR) ba_signed(L, rb0, &b);
      F d;
      const int kind = ba_kind(a, b, (s0 & BA_PAIR) != 0, &d);
      const F inv_d = F::mont_mul(acc, pre);
      acc = F::mont_mul(acc, d);
      ba_store(L, g, kind == BA_ADD ? ba_add_inline(a, b, inv_d) : ba_finish(kind, a, b, inv_d));
      if (k == 0) break;
      s0 = s1;
      ra0 = ra1;
      rb0 = rb1;
      s1 = s2;
      ra1 = nra;
      rb1 = nrb;
      s2 = ns;
    }
  }
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_ba_up(const F* e, uint32_t n, uint32_t groups, F* pre,
                                                 F* out) {
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < groups; t += gridDim.x * blockDim.x)
    ba_up(e, n, BA_SHAPE, t, groups, pre, out);
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_ba_inv(F* e, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    e[i] = inv(e[i]);
}

template <class F>
__global__ void __launch_bounds__(HEAVY) k_ba_down(F* e, const F* pre, uint32_t n, uint32_t groups,
                                                   const F* inv) {
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < groups; t += gridDim.x * blockDim.x)
    ba_down(e, pre, n, BA_SHAPE, t, groups, inv);
}

template <class F>
__global__ void k_ba_src(BaLevel<F> L) {
  for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < L.nb; b += gridDim.x * blockDim.x)
    ba_src(L, b);
}

__global__ void k_iota(uint32_t* v, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v[i] = i;
}

template <class F>
__global__ void k_ba_leftover(BaLevel<F> L, uint32_t* start, uint32_t* end) {
  for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < L.nb; b += gridDim.x * blockDim.x)
    ba_leftover(L, b, start, end);
}

template <class F>
__global__ void k_ba_buckets(BaLevel<F> L, XYZZ<F>* buckets) {
  for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b < L.nb; b += gridDim.x * blockDim.x)
    buckets[b] = ba_bucket(L, b);
}

// The buckets' sums by batch-affine levels (msm_affine.cuh) from the
// sorted values and the bounds; total bounds the pairs. Its memory
// (ba_scratch_bytes: about 0.75 points and 0.6 elements a pair) comes
// from a Scratch of its own: cudaErrorMemoryAllocation when it is over
// BA_MAX_BYTES or does not fit, and the caller takes the XYZZ segments
// instead.
template <class F>
int accumulate_affine(pl_stream* s, Profile* prof, const Affine<F>* bases, const uint32_t* vals,
                      const uint32_t* start, const uint32_t* end, uint32_t nb, size_t total,
                      XYZZ<F>* buckets) {
  const BaShape sh = BA_SHAPE;
  {
    const uint64_t cap = s->opts.affine_max ? s->opts.affine_max : BA_MAX_BYTES;
    // What it may take: the device's free memory and what the stream
    // pool holds unused (pl_device_init keeps freed scratch there).
    size_t free_b = 0, total_b = 0;
    PL_CHECK(cudaMemGetInfo(&free_b, &total_b));
    cudaMemPool_t pool;
    uint64_t reserved = 0, used = 0;
    PL_CHECK(cudaDeviceGetDefaultMemPool(&pool, s->dev));
    PL_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    PL_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    const uint64_t avail = free_b + (reserved > used ? reserved - used : 0);
    const uint64_t need = ba_scratch_bytes<F>(total, nb, sh);
    if (need > cap || need > avail / 2) return (int)cudaErrorMemoryAllocation;
  }
  Scratch sc(s);
  uint32_t *len, *maxlen, *cnt, *off[2], *src;
  Affine<F>* buf[2];
  F* pre;
  const size_t slots0 = ba_points(total, nb, 1) + 1;
  const uint64_t threads0 = (slots0 + sh.slots) / sh.slots;
  uint64_t sizes[16];
  const int rounds0 = ba_rounds(threads0, sh, sizes, 16);
  F *e[16], *p[16];
  PL_TRY(sc.alloc(&len, nb));
  PL_TRY(sc.alloc(&maxlen, 1));
  PL_TRY(sc.alloc(&cnt, nb));
  PL_TRY(sc.alloc(&off[0], nb));
  PL_TRY(sc.alloc(&off[1], nb));
  PL_TRY(sc.alloc(&buf[0], slots0));
  PL_TRY(sc.alloc(&buf[1], ba_points(total, nb, 2) + 1));
  PL_TRY(sc.alloc(&pre, slots0));
  PL_TRY(sc.alloc(&src, slots0));
  for (int k = 0; k <= rounds0; k++) {
    PL_TRY(sc.alloc(&e[k], sizes[k]));
    if (k < rounds0) PL_TRY(sc.alloc(&p[k], sizes[k]));
  }
  size_t scan_bytes = 0;
  PL_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cnt, off[0], (int)nb, s->s));
  uint8_t* scan_temp;
  PL_TRY(sc.alloc(&scan_temp, scan_bytes));

  PL_CHECK(cudaMemsetAsync(maxlen, 0, sizeof(uint32_t), s->s));
  k_segcount<<<grid_for(nb, 256), 256, 0, s->s>>>(start, end, nb, 1, len, maxlen);
  PL_LAUNCHED();
  uint32_t most = 0;
  PL_CHECK(cudaMemcpyAsync(&most, maxlen, sizeof(most), cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  int levels = ba_levels_run(most, total, nb);
  // The stream's affine_levels (k >= 1) stops after k levels and sums
  // what is left as XYZZ segments (the hybrid's A/B runs).
  if (s->opts.affine_levels >= 1 && s->opts.affine_levels < levels) levels = s->opts.affine_levels;

  prof->mark(s, "ba-setup");
  // The first two levels' passes get marks of their own (a Profile keeps
  // 16; the later levels are summed in "affine-levels").
  BaLevel<F> L = {};
  L.bases = bases;
  L.vals = vals;
  L.in_off = start;
  L.len = len;
  L.nb = nb;
  L.pre = pre;
  L.src = src;
  const uint64_t cap[2] = {slots0, ba_points(total, nb, 2) + 1};
  for (int r = 0; r < levels; r++) {
    k_ba_count<<<grid_for(nb, 256), 256, 0, s->s>>>(len, nb, r + 1, cnt);
    PL_LAUNCHED();
    PL_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, cnt, off[r & 1], (int)nb, s->s));
    L.r = r;
    L.out_off = off[r & 1];
    ba_outputs(&L, buf[r & 1], cap[r & 1], r + 1 == levels);
    k_ba_src<F><<<grid_for(nb, 256), 256, 0, s->s>>>(L);
    PL_LAUNCHED();
    const uint64_t threads = ba_threads(total, nb, r, sh);
    const int rounds = ba_rounds(threads, sh, sizes, 16);
    k_ba_pass1<F><<<grid_for(threads, HEAVY), HEAVY, 0, s->s>>>(L, (uint32_t)threads, e[0]);
    PL_LAUNCHED();
    if (r < 2) prof->mark(s, "ba-pass1");
    for (int k = 0; k < rounds; k++) {
      k_ba_up<F><<<grid_for(sizes[k + 1], HEAVY), HEAVY, 0, s->s>>>(
          e[k], (uint32_t)sizes[k], (uint32_t)sizes[k + 1], p[k], e[k + 1]);
      PL_LAUNCHED();
    }
    k_ba_inv<F><<<grid_for(sizes[rounds], 64), 64, 0, s->s>>>(e[rounds], (uint32_t)sizes[rounds]);
    PL_LAUNCHED();
    for (int k = rounds; k-- > 0;) {
      k_ba_down<F><<<grid_for(sizes[k + 1], HEAVY), HEAVY, 0, s->s>>>(
          e[k], p[k], (uint32_t)sizes[k], (uint32_t)sizes[k + 1], e[k + 1]);
      PL_LAUNCHED();
    }
    if (r < 2) prof->mark(s, "ba-inv");
    if constexpr (F::DEGREE == 1)
      k_ba_pass2_staged<F><<<grid_for(threads, HEAVY), HEAVY, 0, s->s>>>(L, (uint32_t)threads, e[0]);
    else
      k_ba_pass2<F><<<grid_for(threads, HEAVY), HEAVY, 0, s->s>>>(L, (uint32_t)threads, e[0]);
    PL_LAUNCHED();
    if (r < 2) prof->mark(s, "ba-pass2");
    ba_next(&L);
  }
  L.r = levels;
  prof->mark(s, "affine-levels");
  if (levels < ba_levels(most)) {  // long buckets left: XYZZ segments over the last level's points
    const uint64_t slots = ba_points(total, nb, levels);
    uint32_t *iota, *lstart, *lend;
    PL_TRY(sc.alloc(&iota, slots));
    PL_TRY(sc.alloc(&lstart, nb));
    PL_TRY(sc.alloc(&lend, nb));
    k_iota<<<grid_for(slots, 256), 256, 0, s->s>>>(iota, (uint32_t)slots);
    PL_LAUNCHED();
    k_ba_leftover<F><<<grid_for(nb, 256), 256, 0, s->s>>>(L, lstart, lend);
    PL_LAUNCHED();
    return accumulate_segments<F>(s, prof, L.in, iota, lstart, lend, nb, slots, slots, 0, buckets);
  }
  k_ba_buckets<F><<<grid_for(nb, 256), 256, 0, s->s>>>(L, buckets);
  PL_LAUNCHED();
  return 0;
}

// The accumulation an MSM takes by default: XYZZ segments for G1,
// batch-affine levels for G2 (docs/design/msm.md), on both curves.
template <class F>
struct AffineDefault {
  static constexpr bool value = F::DEGREE == 2;
};

// Which accumulation an MSM takes: the stream's accum, PL_ACCUM_AFFINE or
// PL_ACCUM_XYZZ (A/B runs and tests), else the default (PL_MSM_AFFINE
// builds the batch-affine one by default, for kernel-variants.sh).
template <class F>
bool accumulate_by_affine(const pl_stream* s) {
  if (s->opts.accum == PL_ACCUM_AFFINE) return true;
  if (s->opts.accum == PL_ACCUM_XYZZ) return false;
#ifdef PL_MSM_AFFINE
  return true;
#else
  return AffineDefault<F>::value;
#endif
}

template <class F>
int precompute(pl_stream* s, void* table_, size_t n, int c) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (c < 4 || c > 24 || n == 0) return PL_ERR_ARG;
  const uint32_t W = msm_windows(c);
  if ((size_t)W * n >= (1ull << 31)) return PL_ERR_TOO_BIG;
  Affine<F>* table = (Affine<F>*)table_;
  const size_t chunk = n < PRECOMPUTE_CHUNK ? n : PRECOMPUTE_CHUNK;
  Scratch sc(s);
  XYZZ<F>* acc;
  F* scratch;
  PL_TRY(sc.alloc(&acc, chunk));
  PL_TRY(sc.alloc(&scratch, chunk));
  for (uint32_t w = 1; w < W; w++) {
    for (size_t lo = 0; lo < n; lo += chunk) {
      const size_t k = n - lo < chunk ? n - lo : chunk;
      k_precompute<F><<<grid_for(k, HEAVY), HEAVY, 0, s->s>>>(table + (w - 1) * n + lo, k, c,
                                                              acc);
      PL_LAUNCHED();
      PL_TRY(to_affine<F>(s, acc, k, scratch, table + w * n + lo));
    }
  }
  return 0;
}

// The sum of points idx[0..count) (device; sum_point, signs as it says)
// of bases[0..nbases), count > 0, into part[0] (device; part from sc);
// *bad (device, zeroed first) is set if an index was out of range.
template <class F>
int sum_device(pl_stream* s, Scratch& sc, const Affine<F>* bases, size_t nbases,
               const uint32_t* idx, size_t count, bool signs, XYZZ<F>** part, uint32_t* bad) {
  // As many threads as the device holds at once (one wave), but at least
  // 8 points a thread: every thread adds about the same number of points
  // and none waits for a second wave.
  int sms = 0, blocks = 0;
  PL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->dev));
  PL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_sum_strided<F>, HEAVY, 0));
  size_t want = (size_t)sms * (blocks > 0 ? blocks : 1) * HEAVY;
  if (want > (count + 7) / 8) want = (count + 7) / 8;
  if (s->opts.sum_threads) want = s->opts.sum_threads;  // A/B runs
  if (want == 0) want = 1;
  const uint32_t threads = (uint32_t)(count < want ? count : want);
  const uint32_t nb = nbases < 0xffffffffu ? (uint32_t)nbases : 0xffffffffu;
  PL_TRY(sc.alloc(part, threads));
  k_sum_strided<F><<<grid_for(threads, HEAVY), HEAVY, 0, s->s>>>(bases, nb, idx, count, signs,
                                                                 threads, *part, bad);
  PL_LAUNCHED();
  return reduce_groups<F>(s, *part, 1, threads, threads);
}

// The MSM over bases (table_n == 0) or over the precomputed table of
// precompute (table_n = its row length, n <= table_n): out receives W
// window sums, or one sum with a table.
template <class Fr, class F>
int msm(pl_stream* s, const void* bases_, const void* scalars_, size_t n, int mont, int c,
        size_t table_n, size_t nnz, size_t units, void* out) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (c < 4 || c > 24 || n == 0 || (table_n && n > table_n) || nnz > n || units > nnz)
    return PL_ERR_ARG;
  if (n >= (1ull << 31)) return PL_ERR_TOO_BIG;
  const Affine<F>* bases = (const Affine<F>*)bases_;
  const Fr* scalars = (const Fr*)scalars_;
  const uint32_t W = msm_windows(c);
  const uint32_t Wb = table_n ? 1 : W;  // windows with buckets of their own
  Scratch sc(s);
  Profile prof(s, "msm", n, c);
  prof.mark(s, nullptr);
  // Over the nonzero scalars alone: the units' points summed apart (their
  // sum waits in unit_sum[0] for the first window's), then the MSM of the
  // others reads scalar and point by index.
  uint32_t* idx = nullptr;
  XYZZ<F>* unit_sum = nullptr;
  uint32_t* bad = nullptr;
  if (nnz) {
    const Fr one = scalar_one<Fr>(mont), minus = one.neg();
    if (units) {
      uint32_t* uidx;
      PL_TRY(sc.alloc(&uidx, n));
      PL_TRY(sc.alloc(&bad, 1));
      PL_CHECK(cudaMemsetAsync(bad, 0, sizeof(*bad), s->s));
      PL_TRY(gather(s, sc, n, ClassAt<Fr>{scalars, one, minus, SCALAR_UNIT}, units, uidx));
      k_unit_signs<Fr><<<grid_for(units, 256), 256, 0, s->s>>>(scalars, minus, uidx, units);
      PL_LAUNCHED();
      // (bad stays clear: gathered indices are in range)
      PL_TRY(sum_device<F>(s, sc, bases, n, uidx, units, true, &unit_sum, bad));
      prof.mark(s, "units");
    }
    PL_TRY(sc.alloc(&idx, n));
    PL_TRY(gather(s, sc, n, ClassAt<Fr>{scalars, one, minus, SCALAR_OTHER}, nnz - units, idx));
    n = nnz - units;
    prof.mark(s, "gather");
    if (n == 0) {  // units alone: their sum is the first window's
      XYZZ<F>* sums = (XYZZ<F>*)out;
      for (uint32_t w = 0; w < Wb; w++) sums[w] = XYZZ<F>::inf();
      PL_CHECK(cudaMemcpyAsync(sums, unit_sum, sizeof(XYZZ<F>), cudaMemcpyDeviceToHost, s->s));
      PL_CHECK(cudaStreamSynchronize(s->s));
      return 0;
    }
  }
  const uint32_t half = 1u << (c - 1);
  const uint32_t nb = Wb * half;
  const size_t total = n * W;
  if (n >= (1ull << 31) || total >= (1ull << 31) || (size_t)W * table_n >= (1ull << 31))
    return PL_ERR_TOO_BIG;
  const MsmSort so = msm_sort_runs(n, c, table_n != 0, MSM_SORT_PER_WINDOW_MIN);
  const size_t run = so.run;
  const int end_bit = 32 - __builtin_clz(so.limit);

  uint32_t *keys_in, *keys_out, *vals_in, *vals_out;
  PL_TRY(sc.alloc(&keys_in, total));
  PL_TRY(sc.alloc(&keys_out, total));
  PL_TRY(sc.alloc(&vals_in, total));
  PL_TRY(sc.alloc(&vals_out, total));
  k_recode<Fr><<<grid_for(n, 256), 256, 0, s->s>>>(scalars, idx, n, mont, c, table_n, so, keys_in,
                                               vals_in);
  PL_LAUNCHED();
  prof.mark(s, "recode");

  size_t temp_bytes = 0;
  PL_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, vals_in,
                                           vals_out, (int)run, 0, end_bit, s->s));
  uint8_t* temp;
  PL_TRY(sc.alloc(&temp, temp_bytes));
  for (size_t lo = 0; lo < total; lo += run)
    PL_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in + lo, keys_out + lo,
                                             vals_in + lo, vals_out + lo, (int)run, 0, end_bit,
                                             s->s));
  prof.mark(s, "sort");

  uint32_t *start, *end;
  PL_TRY(sc.alloc(&start, nb));
  PL_TRY(sc.alloc(&end, nb));
  PL_CHECK(cudaMemsetAsync(start, 0, nb * sizeof(uint32_t), s->s));
  PL_CHECK(cudaMemsetAsync(end, 0, nb * sizeof(uint32_t), s->s));
  unsigned bounds_blocks = grid_for((total + 3) / 4, 256);
  if (PL_BOUNDS_BLOCKS && bounds_blocks > PL_BOUNDS_BLOCKS) bounds_blocks = PL_BOUNDS_BLOCKS;
  k_bounds<<<bounds_blocks, 256, 0, s->s>>>(keys_out, (uint32_t)total, so, half, start, end);
  PL_LAUNCHED();
  prof.mark(s, "bounds");
  XYZZ<F>* buckets;
  PL_TRY(sc.alloc(&buckets, nb));
  // accumulate_affine's cudaErrorMemoryAllocation (over its cap, or out
  // of memory) and not taking it both mean the XYZZ segments.
  int acc = cudaErrorMemoryAllocation;
  if (accumulate_by_affine<F>(s)) {
    acc = accumulate_affine<F>(s, &prof, bases, vals_out, start, end, nb, total, buckets);
    prof.mark(s, "buckets");
  }
  if (acc == cudaErrorMemoryAllocation)
    acc = accumulate_segments<F>(s, &prof, bases, vals_out, start, end, nb, n, total, table_n,
                                 buckets);
  PL_TRY(acc);

  // The window sums (msm.cuh's window reduction): chunks of L buckets,
  // the planes' tree, the final terms.
  const uint32_t L = msm_window_chunk(half, Wb);
  const uint32_t K = half / L;
  const int l = (int)msm_log2(L);
  const uint32_t terms = msm_plane_terms(K);
  XYZZ<F>*planes, *chunks;
  PL_TRY(sc.alloc(&planes, (size_t)msm_planes_len(K) * Wb));
  PL_TRY(sc.alloc(&chunks, (size_t)terms * Wb));
  k_chunk_sums<F><<<grid_for((size_t)K * Wb, HEAVY), HEAVY, 0, s->s>>>(buckets, half, K, Wb,
                                                                       planes);
  PL_LAUNCHED();
  for (uint32_t h = K / 2; h >= 1; h /= 2) {
    const uint32_t items = msm_plane_items(K, h);
    k_plane_step<F><<<grid_for((size_t)items * Wb, HEAVY), HEAVY, 0, s->s>>>(planes, K, h, items,
                                                                             Wb);
    PL_LAUNCHED();
  }
  k_plane_final<F><<<grid_for((size_t)terms * Wb, HEAVY), HEAVY, 0, s->s>>>(planes, K, l, terms,
                                                                            Wb, chunks);
  PL_LAUNCHED();
  PL_TRY(reduce_groups<F>(s, chunks, Wb, terms, terms));
  if (unit_sum) {
    k_add_into<F><<<1, 1, 0, s->s>>>(chunks, unit_sum);
    PL_LAUNCHED();
  }
  prof.mark(s, "windows");
  PL_CHECK(cudaMemcpy2DAsync(out, sizeof(XYZZ<F>), chunks, sizeof(XYZZ<F>) * terms,
                             sizeof(XYZZ<F>), Wb, cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  prof.report();
  return 0;
}

template <class F>
int sum(pl_stream* s, const void* bases, size_t nbases, const int32_t* idx_host, size_t count,
        void* out) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (count == 0) {
    XYZZ<F> inf = XYZZ<F>::inf();
    memcpy(out, &inf, sizeof(inf));
    return 0;
  }
  Scratch sc(s);
  uint32_t *idx, *bad;
  PL_TRY(sc.alloc(&idx, count));
  PL_TRY(sc.alloc(&bad, 1));
  PL_CHECK(cudaMemsetAsync(bad, 0, sizeof(*bad), s->s));
  // a negative index is one past any range: unsigned, without signs
  PL_TRY(pl_h2d_staged(s, idx, idx_host, count * sizeof(int32_t)));
  XYZZ<F>* part;
  PL_TRY(sum_device<F>(s, sc, (const Affine<F>*)bases, nbases, idx, count, false, &part, bad));
  XYZZ<F> r;
  uint32_t b = 0;
  PL_CHECK(cudaMemcpyAsync(&r, part, sizeof(r), cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaMemcpyAsync(&b, bad, sizeof(b), cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  if (b) return PL_ERR_ARG;
  memcpy(out, &r, sizeof(r));
  return 0;
}

}  // namespace
}  // namespace msmk
}  // namespace pl

namespace pl {

// msm_entry.cuh's entry points over curve C's group G.
template <class C, int G>
using MsmCoords = typename std::conditional<G == 1, typename C::Fp, typename C::Fp2>::type;

template <class C, int G>
int MsmEntry<C, G>::msm(pl_stream* s, const void* bases, const void* scalars, size_t n, int mont,
                        int c, size_t table_n, size_t nnz, size_t units, void* out) {
  return msmk::msm<typename C::Fr, MsmCoords<C, G>>(s, bases, scalars, n, mont, c, table_n, nnz,
                                                    units, out);
}

template <class C, int G>
int MsmEntry<C, G>::precompute(pl_stream* s, void* table, size_t n, int c) {
  return msmk::precompute<MsmCoords<C, G>>(s, table, n, c);
}

template <class C, int G>
int MsmEntry<C, G>::sum(pl_stream* s, const void* bases, size_t nbases, const int32_t* idx,
                        size_t count, void* out) {
  return msmk::sum<MsmCoords<C, G>>(s, bases, nbases, idx, count, out);
}

}  // namespace pl
