//go:build cudahost

// emu.h: the host emulation of the MSM kernels (msm_impl.cuh's steps in
// the kernels' order) and of the batch sums, shared by hostcheck.cpp and
// variants.cpp (the same emulation built with the A/B switches on).
#pragma once
#include <string.h>
#include <algorithm>
#include <vector>
#include "fixed.cuh"
#include "msm.cuh"
#include "msm_affine.cuh"

namespace pl {
namespace emu {

// Go memory is only 8-byte aligned; the field types are 16-byte aligned
// (field.cuh), so arrays from Go are copied into vectors before use.
template <class T>
static std::vector<T> copy_in(const void* p, size_t n) {
  std::vector<T> v(n);
  memcpy((void*)v.data(), p, n * sizeof(T));
  return v;
}

template <class F>
static void emu_reduce(std::vector<XYZZ<F>>& pts, uint32_t groups, uint32_t stride, uint32_t len) {
  while (len > 1) {
    uint32_t newlen = (len + 1) / 2;
    for (uint32_t g = 0; g < groups; g++)
      for (uint32_t i = 0; i < len - newlen; i++) pts[g * stride + i].add(pts[g * stride + i + newlen]);
    len = newlen;
  }
}

// The smallest plain MSM whose windows are sorted one at a time
// (msm_sort_runs), the kernels' unless a test sets it to check both ways
// at small sizes.
static uint64_t sort_per_window_min = MSM_SORT_PER_WINDOW_MIN;

// The XYZZ accumulation as msm_impl.cuh's accumulate_segments runs it:
// segments of at most seg points, then a tree over each bucket's
// segments as k_seg_tree (rounds while 2^r < the largest count,
// k_segcount's maximum).
template <class F>
static std::vector<XYZZ<F>> emu_segments(const Affine<F>* bases, const uint32_t* vals,
                                         const std::vector<uint32_t>& start,
                                         const std::vector<uint32_t>& end, int seg) {
  const uint32_t nb = (uint32_t)start.size();
  std::vector<uint32_t> cnt(nb), off(nb);
  uint32_t acc = 0;
  for (uint32_t b = 0; b < nb; b++) {
    cnt[b] = (end[b] - start[b] + seg - 1) / seg;
    off[b] = acc;
    acc += cnt[b];
  }
  const uint32_t tot = off[nb - 1] + cnt[nb - 1];
  std::vector<XYZZ<F>> partial(tot);
  for (uint32_t g = 0; g < tot; g++) {
    uint32_t b = find_bucket(off.data(), nb, g);
    uint32_t begin, stop;
    msm_segment(start[b], end[b], g - off[b], cnt[b], &begin, &stop);
    partial[g] = msm_accumulate<F>(bases, vals, begin, stop);
  }
  const uint32_t maxcnt = *std::max_element(cnt.begin(), cnt.end());
  for (int r = 0; (1ull << r) < maxcnt; r++) {
    for (uint32_t g = 0; g < tot; g++) {
      uint32_t b = find_bucket(off.data(), nb, g), newlen;
      if (msm_tree_step(g - off[b], cnt[b], r, &newlen)) partial[g].add(partial[g + newlen]);
    }
  }
  std::vector<XYZZ<F>> buckets(nb);
  for (uint32_t b = 0; b < nb; b++) buckets[b] = cnt[b] ? partial[off[b]] : XYZZ<F>::inf();
  return buckets;
}

// The accumulation the emulation runs (msm_impl.cuh: accumulate_by_affine)
// and the shape of the batch-affine one; tests set small shapes to reach
// every branch of its rounds.
static bool accum_affine = false;
static BaShape ba_shape = BA_SHAPE;

// The batch-affine accumulation as msm_impl.cuh's accumulate_affine runs
// it: the buckets' sums from the sorted values and the bounds.
template <class F>
static std::vector<XYZZ<F>> emu_ba(const Affine<F>* bases, const uint32_t* vals,
                                   const std::vector<uint32_t>& start,
                                   const std::vector<uint32_t>& end, uint64_t total) {
  const uint32_t nb = (uint32_t)start.size();
  const BaShape sh = ba_shape;
  std::vector<uint32_t> len(nb), off[2] = {std::vector<uint32_t>(nb), std::vector<uint32_t>(nb)};
  uint32_t maxlen = 0;
  for (uint32_t b = 0; b < nb; b++) {
    len[b] = end[b] - start[b];
    maxlen = std::max(maxlen, len[b]);
  }
  const int levels = ba_levels_run(maxlen, total, nb);
  std::vector<Affine<F>> buf[2] = {std::vector<Affine<F>>(ba_points(total, nb, 1) + 1),
                                   std::vector<Affine<F>>(ba_points(total, nb, 2) + 1)};
  std::vector<F> pre(ba_points(total, nb, 1) + 1);
  std::vector<uint32_t> src(ba_points(total, nb, 1) + 1);
  BaLevel<F> L = {};
  L.bases = bases;
  L.vals = vals;
  L.in_off = start.data();
  L.len = len.data();
  L.nb = nb;
  L.src = src.data();
  for (int r = 0; r < levels; r++) {
    std::vector<uint32_t>& out_off = off[r & 1];
    uint32_t acc = 0;
    for (uint32_t b = 0; b < nb; b++) {
      out_off[b] = acc;
      acc += ba_count(len[b], r + 1);
    }
    L.r = r;
    L.out_off = out_off.data();
    ba_outputs(&L, buf[r & 1].data(), buf[r & 1].size(), r + 1 == levels);
    L.pre = pre.data();
    for (uint32_t b = 0; b < nb; b++) ba_src(L, b);
    const uint64_t threads = ba_threads(total, nb, r, sh);  // the kernels' grid
    uint64_t sizes[16];
    const int rounds = ba_rounds(threads, sh, sizes, 16);
    std::vector<std::vector<F>> e(rounds + 1), p(rounds);
    for (int k = 0; k <= rounds; k++) e[k].resize(sizes[k]);
    for (int k = 0; k < rounds; k++) p[k].resize(sizes[k]);
    const uint32_t T = (uint32_t)threads;
    for (uint32_t t = 0; t < T; t++) ba_pass1(L, sh, t, T, e[0].data());
    for (int k = 0; k < rounds; k++)
      for (uint32_t t = 0; t < sizes[k + 1]; t++)
        ba_up(e[k].data(), (uint32_t)sizes[k], sh, t, (uint32_t)sizes[k + 1], p[k].data(),
              e[k + 1].data());
    for (auto& x : e[rounds]) x = inv(x);
    for (int k = rounds; k-- > 0;)
      for (uint32_t t = 0; t < sizes[k + 1]; t++)
        ba_down(e[k].data(), p[k].data(), (uint32_t)sizes[k], sh, t, (uint32_t)sizes[k + 1],
                e[k + 1].data());
    for (uint32_t t = 0; t < T; t++) ba_pass2(L, sh, t, T, e[0].data());
    ba_next(&L);
  }
  L.r = levels;
  if (levels < ba_levels(maxlen)) {  // long buckets left: XYZZ segments over the last level's points
    const uint64_t slots = ba_points(total, nb, levels);
    std::vector<uint32_t> iota(slots), lstart(nb), lend(nb);
    for (uint64_t i = 0; i < slots; i++) iota[i] = (uint32_t)i;
    for (uint32_t b = 0; b < nb; b++) ba_leftover(L, b, lstart.data(), lend.data());
    return emu_segments<F>(L.in, iota.data(), lstart, lend, (int)msm_seg_cap(slots, nb, false));
  }
  std::vector<XYZZ<F>> buckets(nb);
  for (uint32_t b = 0; b < nb; b++) buckets[b] = ba_bucket(L, b);
  return buckets;
}

// Same steps as msm<Fr, F> in msm_impl.cuh, segments of at most seg
// points (0: msm_seg_cap's, as the kernels); with table_n > 0, bases_ is
// a table of msm_windows(c) rows of table_n points (emu_precompute's).
template <class Fr, class F>
static void emu_msm(const void* bases_, const uint64_t* scalars, size_t n, int mont, int c, int seg,
                    int chunk, size_t table_n, void* out) {
  const uint32_t W = msm_windows(c), half = 1u << (c - 1);
  const uint32_t Wb = table_n ? 1 : W, nb = Wb * half;
  const std::vector<Affine<F>> bases_v = copy_in<Affine<F>>(bases_, table_n ? W * table_n : n);
  const Affine<F>* bases = bases_v.data();
  const size_t total = n * W;
  std::vector<uint32_t> keys(total), vals(total);
  const MsmSort so = msm_sort_runs(n, c, table_n != 0, sort_per_window_min);
  for (size_t i = 0; i < n; i++) {
    Fr s;
    memcpy(s.v, scalars + 4 * i, sizeof(s.v));
    if (mont) s = s.from_mont();
    msm_recode(s.v, (uint32_t)i, c, keys.data() + i, vals.data() + i, n, table_n, so);
  }
  std::vector<size_t> order(total);
  for (size_t i = 0; i < total; i++) order[i] = i;
  const size_t run = so.run;  // each run sorted on its own
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return a / run != b / run ? a / run < b / run : keys[a] < keys[b];
  });
  std::vector<uint32_t> ks(total), vs(total);
  for (size_t i = 0; i < total; i++) {
    ks[i] = keys[order[i]];
    vs[i] = vals[order[i]];
  }
  std::vector<uint32_t> start(nb, 0), end(nb, 0);
  for (size_t i = 0; i < total; i += 4) {
    uint32_t k[4] = {0, 0, 0, 0};
    for (size_t t = 0; t < 4 && i + t < total; t++) k[t] = ks[i + t];
    msm_bounds4(ks.data(), (uint32_t)i, k, (uint32_t)total, so, half, start.data(), end.data());
  }
  std::vector<XYZZ<F>> buckets;
  if (accum_affine)
    buckets = emu_ba<F>(bases, vs.data(), start, end, total);
  else
    buckets = emu_segments<F>(bases, vs.data(), start, end, seg ? seg : (int)msm_seg_cap(total, nb, table_n != 0));
  // the window reduction as msm<F> runs it, chunks of `chunk` buckets
  // (a power of two; 0: the kernels' msm_window_chunk)
  const uint32_t L = chunk == 0 ? msm_window_chunk(half, Wb) : half < (uint32_t)chunk ? half : (uint32_t)chunk;
  const uint32_t K = half / L, P = msm_planes_len(K), terms = msm_plane_terms(K);
  std::vector<XYZZ<F>> planes((size_t)P * Wb), sums((size_t)terms * Wb);
  for (uint32_t t = 0; t < K * Wb; t++) {
    const uint32_t w = t / K, k = t % K;
    msm_chunk_sums<F>(buckets.data() + (size_t)w * half, k * L, L, &planes[w * P + k], &planes[w * P + K + k]);
  }
  for (uint32_t h = K / 2; h >= 1; h /= 2) {
    const uint32_t items = msm_plane_items(K, h);
    for (uint32_t t = 0; t < items * Wb; t++) msm_plane_step<F>(&planes[(t / items) * P], K, h, t % items);
  }
  const int l = (int)msm_log2(L);
  for (uint32_t t = 0; t < terms * Wb; t++) sums[t] = msm_plane_final<F>(&planes[(t / terms) * P], K, l, t % terms);
  emu_reduce<F>(sums, Wb, terms, terms);
  for (uint32_t w = 0; w < Wb; w++) memcpy((char*)out + w * sizeof(XYZZ<F>), &sums[w * terms], sizeof(XYZZ<F>));
}

// precompute<F> in msm_impl.cuh: rows 1..W-1 of the table from row 0 (the
// n points of bases_), converted to affine `batch` points at a time.
template <class F>
static void emu_precompute(const void* bases_, size_t n, int c, size_t batch, void* out) {
  const uint32_t W = msm_windows(c);
  std::vector<Affine<F>> table(W * n);
  memcpy((void*)table.data(), bases_, n * sizeof(Affine<F>));
  std::vector<XYZZ<F>> acc(n);
  std::vector<F> scratch(n);
  for (uint32_t w = 1; w < W; w++) {
    for (size_t i = 0; i < n; i++) acc[i] = msm_precompute_step<F>(table[(w - 1) * n + i], c);
    for (size_t lo = 0; lo < n; lo += batch) {
      size_t hi = lo + batch < n ? lo + batch : n;
      fixed_to_affine<F>(acc.data(), table.data() + w * n, scratch.data() + lo, lo, hi);
    }
  }
  memcpy(out, (const void*)table.data(), W * n * sizeof(Affine<F>));
}

template <class F>
static void emu_sum(const void* bases_, const int32_t* idx, size_t count, uint32_t threads, void* out) {
  int32_t top = -1;
  for (size_t i = 0; i < count; i++) top = std::max(top, idx[i]);
  const std::vector<Affine<F>> bases_v = copy_in<Affine<F>>(bases_, (size_t)(top + 1));
  const Affine<F>* bases = bases_v.data();
  std::vector<XYZZ<F>> part(threads);
  for (uint32_t t = 0; t < threads; t++) {
    XYZZ<F> a = XYZZ<F>::inf();
    for (size_t i = t; i < count; i += threads) a.add_affine(bases[idx[i]], false);
    part[t] = a;
  }
  emu_reduce<F>(part, 1, threads, threads);
  memcpy(out, &part[0], sizeof(XYZZ<F>));
}

}  // namespace emu
}  // namespace pl
