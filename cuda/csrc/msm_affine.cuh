// msm_affine.cuh: the batch-affine accumulation of an MSM's buckets, the
// per-thread pieces shared by the kernels (msm_impl.cuh) and the host
// emulation (cuda/internal/hostcheck).
//
// The XYZZ accumulation adds a bucket's points one after another, about
// ten field products an addition (madd-2008-s). In affine coordinates an
// addition is three products once the inverse of x2 - x1 is known, and
// Montgomery's trick shares one inversion among many independent
// additions for three products each: six in all. Additions are
// independent when they are in different buckets or pair different
// points of one bucket, so the buckets are summed as trees, level by
// level, over the whole MSM at once:
//
//   level r: bucket b holds ceil(len_b / 2^r) points; output slot j of
//   the bucket adds its inputs 2j and 2j+1 (or passes 2j on when it is
//   the last, odd one). Level 0's inputs are the sorted pairs' bases,
//   negated by the digit's sign; level r+1's are level r's outputs.
//
// Each level first lists every output slot's inputs (ba_src: where the
// first is, and whether a second follows it), so that the passes find
// them without looking up the buckets. Then two passes over the slots,
// BA_SHAPE.slots a thread, taken t, t + T, t + 2T, ... (T threads): a
// warp's lanes read and write neighbouring slots, whose prefixes, outputs
// and (after level 0) inputs lie side by side in memory. The first pass
// writes each slot's denominator's exclusive prefix product (within the
// thread) and the thread's product. Those products are inverted
// together by the same trick in rounds of BA_SHAPE.group (ba_up, ba_down)
// until at most BA_SHAPE.inv_max remain, which are inverted one a thread
// (field_inv, a binary Euclid): every lane of those kernels does useful
// work, so the inversions cost a fraction of a product an addition. The
// second pass walks its slots backwards from its product's inverse, takes
// each slot's 1/d and adds. A level's one inversion is on its critical
// path, so long buckets stop early (ba_levels_run). A level's outputs
// are stored as an x array and a y array (ba_outputs), so that the next
// first pass reads x's alone. The passes move ~500 bytes a slot for G1
// (docs/design/msm.md); G1's second pass is a
// kernel of its own (msm_impl.cuh, k_ba_pass2_staged).
//
// A slot's inputs decide its kind: an addition (x1 != x2, d = x2 - x1), a
// doubling (equal points, d = 2y, numerator 3x^2), a pass-through (one
// input absent or at infinity, d = 1) or infinity (P + (-P), d = 1).
// Infinity is (0, 0), gnark-crypto's affine encoding.
#pragma once
#include "fixed.cuh"

namespace pl {

// How the work is cut: slots a level pass thread takes, elements a
// thread of the trick's rounds takes, and the most products inverted one
// a thread. The emulation runs small ones to reach every branch.
struct BaShape {
  uint32_t slots, group, inv_max;
};
#ifndef PL_BA_SLOTS  // A/B builds (scripts/kernel-variants.sh)
#define PL_BA_SLOTS 8
#endif
constexpr BaShape BA_SHAPE = {PL_BA_SLOTS, 8, 2048};  // the kernels'

enum { BA_ADD = 0, BA_DBL = 1, BA_A = 2, BA_B = 3, BA_INF = 4 };

// Points bucket b of length len holds at level r: ceil(len / 2^r).
PL_HD uint32_t ba_count(uint32_t len, int r) {
  return (uint32_t)(((uint64_t)len + (1ull << r) - 1) >> r);
}

// Levels until every bucket holds one point: ceil(log2(maxlen)).
PL_HD int ba_levels(uint32_t maxlen) {
  int r = 0;
  while ((1ull << r) < maxlen) r++;
  return r;
}

// Levels the passes run: every bucket's tree, unless a few buckets are
// far longer than the mean (over a table, the top window's small digits
// put about n/8 points into each of 8 buckets: 17 levels at 2^20 instead
// of 7, each paying an inversion's latency). Then they stop once buckets
// of twice the mean length (and 64 more) are done, and the long buckets'
// remaining points are summed as XYZZ segments. total / nb is the mean.
PL_HD int ba_levels_run(uint32_t maxlen, uint64_t total, uint32_t nb) {
  const int all = ba_levels(maxlen);
  const uint64_t typical = 2 * (total / nb) + 64;
  const int enough = ba_levels(typical > 0xffffffffu ? 0xffffffffu : (uint32_t)typical);
  return all < enough ? all : enough;
}

// The most points level r holds (r >= 1: the slots of level r - 1) for
// total pairs in nb buckets: sum_b ceil(len_b / 2^r) <= total / 2^r + nb.
// The buffers, grids and the leftover's values are sized by it.
PL_HD uint64_t ba_points(uint64_t total, uint32_t nb, int r) { return (total >> r) + nb; }

// Threads of level r's passes: sh.slots each for ba_points(r + 1) slots,
// and one more (it writes a product of 1).
PL_HD uint64_t ba_threads(uint64_t total, uint32_t nb, int r, BaShape sh) {
  return (ba_points(total, nb, r + 1) + sh.slots) / sh.slots;
}

// src[g] of a slot that adds two inputs (else it passes its one input on).
constexpr uint32_t BA_PAIR = 1u << 31;

// One level's arrays. Level 0 reads bases[vals[in_off[b] + i]] (the
// sign in bit 31); later levels read in[in_off[b] + i].
template <class F>
struct BaLevel {
  const Affine<F>* bases;
  const uint32_t* vals;
  const Affine<F>* in;       // a level's points (nullptr at level 0 and with in_x)
  const F* in_x;             // or its x and y arrays (ba_outputs)
  const F* in_y;
  const uint32_t* in_off;    // level 0: the buckets' starts
  const uint32_t* len;       // the buckets' lengths at level 0
  const uint32_t* out_off;   // exclusive sums of ba_count(len, r + 1)
  uint32_t nb;
  int r;
  Affine<F>* out;  // the outputs as points (nullptr with out_x)
  F* out_x;        // or as x and y arrays
  F* out_y;
  F* pre;  // a slot's exclusive prefix product within its thread
  // Slot g's first input, an index into vals (level 0) or in (later
  // levels), with BA_PAIR when the next one is its second (ba_src).
  uint32_t* src;
};

// Where level L.r writes its outputs: buf, room for cap points, as x and
// y arrays (the next level's pass 1 reads the x's alone: 96 bytes a slot
// instead of the points' 192), or as points for the last level (the
// XYZZ segments of a leftover read points).
template <class F>
PL_HD void ba_outputs(BaLevel<F>* L, Affine<F>* buf, uint64_t cap, bool last) {
  L->out = nullptr;
  L->out_x = L->out_y = nullptr;
  if (last) {
    L->out = buf;
  } else {
    L->out_x = (F*)buf;
    L->out_y = L->out_x + cap;
  }
}

// The next level reads this one's outputs.
template <class F>
PL_HD void ba_next(BaLevel<F>* L) {
  L->in = L->out;
  L->in_x = L->out_x;
  L->in_y = L->out_y;
  L->in_off = L->out_off;
}

// Entry i of the level's inputs (an index into vals or in).
template <class F>
PL_HD Affine<F> ba_input(const BaLevel<F>& L, uint32_t i) {
  if (L.in_x) {
    Affine<F> p;
    p.x = L.in_x[i];
    p.y = L.in_y[i];
    return p;
  }
  if (L.in) return L.in[i];
  const uint32_t v = L.vals[i];
  Affine<F> p = L.bases[v & 0x7fffffffu];
  if (v >> 31) p.y = p.y.neg();
  return p;
}

// The x of entry i (a pass needs only x for the common kind).
template <class F>
PL_HD F ba_input_x(const BaLevel<F>& L, uint32_t i) {
  if (L.in_x) return L.in_x[i];
  if (L.in) return L.in[i].x;
  return L.bases[L.vals[i] & 0x7fffffffu].x;
}

// The src entries of bucket b's output slots at level L.r.
template <class F>
PL_HD void ba_src(const BaLevel<F>& L, uint32_t b) {
  const uint32_t n = ba_count(L.len[b], L.r), outs = ba_count(L.len[b], L.r + 1);
  const uint32_t in = L.in_off[b], out = L.out_off[b];
  for (uint32_t j = 0; j < outs; j++) L.src[out + j] = (in + 2 * j) | (2 * j + 1 < n ? BA_PAIR : 0);
}

// Output slots of the level.
template <class F>
PL_HD uint32_t ba_slots(const BaLevel<F>& L) {
  return L.out_off[L.nb - 1] + ba_count(L.len[L.nb - 1], L.r + 1);
}

template <class F>
PL_HD int ba_kind(const Affine<F>& a, const Affine<F>& b, bool has_b, F* d) {
  *d = F::one();
  if (!has_b || b.is_inf()) return BA_A;
  if (a.is_inf()) return BA_B;
  if (!(a.x == b.x)) {
    *d = b.x - a.x;
    return BA_ADD;
  }
  if (a.y == b.y) {
    *d = a.y.dbl();
    return BA_DBL;
  }
  return BA_INF;
}

// Slot g: its kind and denominator; a and b loaded when the x
// coordinates alone do not settle it (pass 1) or always (full).
template <class F>
PL_HD int ba_slot(const BaLevel<F>& L, uint32_t g, bool full, Affine<F>* pa, Affine<F>* pb, F* d) {
  const uint32_t s = L.src[g], i = s & ~BA_PAIR;
  const bool has_b = (s & BA_PAIR) != 0;
  if (!full && has_b) {
    const F ax = ba_input_x(L, i), bx = ba_input_x(L, i + 1);
    if (!(ax == bx) && !ax.is_zero() && !bx.is_zero()) {  // neither is infinity (0, 0)
      *d = bx - ax;
      return BA_ADD;
    }
  }
  *pa = ba_input(L, i);
  if (has_b) *pb = ba_input(L, i + 1);
  return ba_kind(*pa, *pb, has_b, d);
}

// How many of the k-strided items t, t + T, t + 2T, ... below n a thread
// takes, at most k: the passes' slots and the rounds' elements.
PL_HD uint32_t ba_taken(uint32_t n, uint32_t t, uint32_t T, uint32_t k) {
  if (t >= n) return 0;
  const uint32_t m = (n - t + T - 1) / T;
  return m < k ? m : k;
}

// Pass 1 for thread t of T: pre[] of its slots and tot[t], the product
// of their denominators (1 for a thread with no slot).
template <class F>
PL_HD void ba_pass1(const BaLevel<F>& L, BaShape sh, uint32_t t, uint32_t T, F* tot) {
  const uint32_t m = ba_taken(ba_slots(L), t, T, sh.slots);
  F prod = F::one();
  for (uint32_t k = 0; k < m; k++) {
    const uint32_t g = t + k * T;
    Affine<F> pa, pb;
    F d;
    ba_slot(L, g, false, &pa, &pb, &d);
    L.pre[g] = prod;
    prod = prod * d;
  }
  tot[t] = prod;
}

// Slot g's sum into the level's outputs.
template <class F>
PL_HD void ba_store(const BaLevel<F>& L, uint32_t g, const Affine<F>& p) {
  if (L.out_x) {
    L.out_x[g] = p.x;
    L.out_y[g] = p.y;
  } else {
    L.out[g] = p;
  }
}

// The slot's sum, given 1/d.
template <class F>
PL_HD_CALL Affine<F> ba_finish(int kind, const Affine<F>& a, const Affine<F>& b, const F& inv_d) {
  if (kind == BA_A) return a;
  if (kind == BA_B) return b;
  Affine<F> r;
  if (kind == BA_INF) {
    r.x = F::zero();
    r.y = F::zero();
    return r;
  }
  F num;
  if (kind == BA_ADD) {
    num = b.y - a.y;
  } else {
    const F xx = a.x.sqr();
    num = xx.dbl() + xx;
  }
  const F l = num * inv_d;
  r.x = l.sqr() - a.x - b.x;  // b.x == a.x for a doubling
  r.y = l * (a.x - r.x) - a.y;
  return r;
}

// Pass 2 for thread t of T, inv = 1 / tot[t]: each slot's sum into out.
template <class F>
PL_HD void ba_pass2(const BaLevel<F>& L, BaShape sh, uint32_t t, uint32_t T, const F* inv) {
  const uint32_t m = ba_taken(ba_slots(L), t, T, sh.slots);
  F acc = inv[t];
  for (uint32_t k = m; k-- > 0;) {
    const uint32_t g = t + k * T;
    Affine<F> pa, pb;
    F d;
    const int kind = ba_slot(L, g, true, &pa, &pb, &d);
    const F inv_d = acc * L.pre[g];
    acc = acc * d;
    ba_store(L, g, ba_finish(kind, pa, pb, inv_d));
  }
}

// A slot's inputs by reference (G1's second pass, k_ba_pass2_staged,
// copies them ahead): ba_ref(L, i) is what entry i refers to, a value of
// vals at level 0 (the sign in bit 31), else i itself; ba_signed applies
// the sign once the point is loaded.
template <class F>
PL_HD uint32_t ba_ref(const BaLevel<F>& L, uint32_t i) {
  return L.in || L.in_x ? i : L.vals[i];
}
template <class F>
PL_HD void ba_signed(const BaLevel<F>& L, uint32_t ref, Affine<F>* p) {
  if (!L.in && !L.in_x && (ref >> 31)) p->y = p->y.neg();
}

// A round of the trick up, group t of G = ceil(n / group): out[t] = the
// product of e[t], e[t + G], ..., and pre[] each element's exclusive
// prefix product within the group.
template <class F>
PL_HD void ba_up(const F* e, uint32_t n, BaShape sh, uint32_t t, uint32_t G, F* pre, F* out) {
  const uint32_t m = ba_taken(n, t, G, sh.group);
  F prod = F::one();
  for (uint32_t k = 0; k < m; k++) {
    const uint32_t i = t + k * G;
    pre[i] = prod;
    prod = prod * e[i];
  }
  out[t] = prod;
}

// A round down: with inv[t] = 1 / out[t] of ba_up, e[] of the group
// becomes its inverses.
template <class F>
PL_HD void ba_down(F* e, const F* pre, uint32_t n, BaShape sh, uint32_t t, uint32_t G,
                   const F* inv) {
  const uint32_t m = ba_taken(n, t, G, sh.group);
  F acc = inv[t];
  for (uint32_t k = m; k-- > 0;) {
    const uint32_t i = t + k * G;
    const F x = e[i];
    e[i] = acc * pre[i];
    acc = acc * x;
  }
}

// The bucket's sum after the levels (L: the arrays the next level would
// read), XYZZ for the window reduction, when every bucket is down to at
// most one point.
template <class F>
PL_HD XYZZ<F> ba_bucket(const BaLevel<F>& L, uint32_t b) {
  if (L.len[b] == 0) return XYZZ<F>::inf();
  return XYZZ<F>::from_affine(ba_input(L, L.in_off[b]));
}

// After levels that left some buckets more than one point (L as for
// ba_bucket, L.r >= 1): bucket b's points, [start[b], end[b]) of L.in,
// for the XYZZ segments; vals[i] = i for the slots i of the level.
template <class F>
PL_HD void ba_leftover(const BaLevel<F>& L, uint32_t b, uint32_t* start, uint32_t* end) {
  start[b] = L.in_off[b];
  end[b] = L.in_off[b] + ba_count(L.len[b], L.r);
}

// The scratch bytes accumulate_affine allocates for total pairs in nb
// buckets (the trick's arrays bounded by 8/7 of the first round's).
template <class F>
inline uint64_t ba_scratch_bytes(uint64_t total, uint32_t nb, BaShape sh) {  // host
  const uint64_t slots0 = ba_points(total, nb, 1) + 1, threads0 = (slots0 + sh.slots) / sh.slots;
  return 5ull * nb * 4 + (slots0 + ba_points(total, nb, 2) + 1) * sizeof(Affine<F>) +
         slots0 * (sizeof(F) + 4) + 2 * (threads0 + threads0 / 7 + 16) * sizeof(F);
}

// The most scratch an MSM's batch-affine accumulation takes, unless the
// stream's options say otherwise (pl_options.affine_max); over it, or
// over half the device's free memory, the MSM takes the XYZZ segments.
// The device memory model counts it (cuda.Options.AffineScratch, a
// mirror of ba_scratch_bytes): 4 GiB covers a G2 MSM of up to about 1.2
// million points (16 windows).
constexpr uint64_t BA_MAX_BYTES = 4ull << 30;

// Trick rounds: sizes n_0 = threads, n_{k+1} = ceil(n_k / group) while
// n_k > inv_max. Returns the number of rounds.
inline int ba_rounds(uint64_t n, BaShape sh, uint64_t* sizes, int max) {  // host
  int k = 0;
  sizes[0] = n;
  while (sizes[k] > sh.inv_max && k + 1 < max) {
    sizes[k + 1] = (sizes[k] + sh.group - 1) / sh.group;
    k++;
  }
  return k;
}

}  // namespace pl
