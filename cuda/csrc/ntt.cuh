// ntt.cuh: index arithmetic of the radix-2 NTT, shared by the kernels
// (ntt.cu) and the host emulation (cuda/internal/hostcheck); the
// butterflies are templates over the scalar field Fr (curves.cuh).
//
// An NTT of n = 2^L points runs as passes; a pass does k consecutive
// radix-2 stages in shared memory on tiles of 2^k rows by G columns. For a
// pass over index bits [lo, lo+k): a global index is
// (high << (lo+k)) | (j << lo) | l, with j the row (the bits the pass
// transforms) and l = lb*G + g the column. DIF (natural in, bit-reversed
// out, gnark's fft.DIF) runs passes from the top bits down and the stages
// inside a pass from the top row bit down; DIT (bit-reversed in, natural
// out, fft.DIT) the other way round. The stage of half-size h = 2^(lo+m)
// pairs rows j0, j0 + 2^m and uses twiddle w^e,
// e = ((j0 mod 2^m) << lo | l) << (L - 1 - lo - m).
#pragma once
#include "curves.cuh"

namespace pl {

// A tile holds 2^PL_NTT_TILE_LOG elements (16 KB at 9): 2^24 points run
// as 3 passes of 8 stages. 1024-element tiles were 1.02-1.04x slower at
// 2^20-2^24 (docs/design/ntt.md); the define is an A/B knob.
#ifndef PL_NTT_TILE_LOG
#define PL_NTT_TILE_LOG 9
#endif

// The pass over the lowest bits (lo = 0, one column) holds 2^logS
// consecutive tiles of 2^k rows in a block, so that its blocks are
// 2^PL_NTT_TILE_LOG elements like the other passes' and its quad step of
// stages 2 and 3 has its unit-twiddle quads in whole warps
// (ntt_units_map). -DPL_NTT_LOW_SUB=0 keeps one tile a block (A/B).
#ifndef PL_NTT_LOW_SUB
#define PL_NTT_LOW_SUB 1
#endif

// The sub-tiles' arithmetic is under `logS` tests, which the kernel of
// the upper passes folds away (ntt.cu's LOW = false sets logS = 0): its
// code is the one-tile code as before.
struct NttPass {
  int L, lo, k, logG;  // G = 2^logG columns per tile
  int logS;            // 2^logS sub-tiles per block (lo = 0 only, where logG = 0)
  PL_HD int tile_log() const { return logS + k + logG; }
  PL_HD uint64_t blocks() const { return 1ull << (L - tile_log()); }
  // global index of tile element t in block b (with sub-tiles a block is
  // a run of consecutive elements)
  PL_HD uint64_t index(uint64_t b, uint32_t t) const {
    if (logS) return (b << tile_log()) | t;
    const uint64_t lblocks = 1ull << (lo - logG);
    uint64_t high = b >> (lo - logG);
    uint64_t lb = b & (lblocks - 1);
    uint64_t j = t >> logG;
    uint64_t g = t & ((1u << logG) - 1);
    return (high << (lo + k)) | (j << lo) | ((lb << logG) | g);
  }
  // pair p (0 <= p < tile/2) of stage m in block b: tile rows and twiddle exponent
  PL_HD void pair(uint64_t b, uint32_t p, int m, uint32_t* t0, uint32_t* t1, uint64_t* e) const {
    uint32_t sub = 0;  // the sub-tile's first row
    if (logS) {
      sub = (p >> (k - 1)) << k;
      p &= (1u << (k - 1)) - 1;
    }
    const uint64_t lblocks = 1ull << (lo - logG);
    uint64_t lb = b & (lblocks - 1);
    uint32_t g = p & ((1u << logG) - 1);
    uint32_t q = p >> logG;
    uint32_t mask = (1u << m) - 1;
    uint32_t j0 = ((q >> m) << (m + 1)) | (q & mask);
    uint32_t j1 = j0 | (1u << m);
    *t0 = sub | (j0 << logG) | g;
    *t1 = sub | (j1 << logG) | g;
    uint64_t l = (lb << logG) | g;
    *e = ((((uint64_t)(j0 & mask)) << lo) | l) << (L - 1 - lo - m);
  }
};

// The stages of a pass of k stages run as steps: k/2 quad steps, each
// two stages (mlo and mlo+1) on 4 rows held in registers, then, when k
// is odd, one pair step (a radix-2 stage). DIF runs the stages from k-1
// down (quad s: mlo = k-2-2s; the pair step m = 0), DIT from 0 up (quad
// s: mlo = 2s; the pair step m = k-1).
PL_HD int ntt_quad_mlo(int k, bool dif, int s) { return dif ? k - 2 - 2 * s : 2 * s; }
PL_HD int ntt_pair_m(int k, bool dif) { return dif ? 0 : k - 1; }

// Split L stages into passes of at most PL_NTT_TILE_LOG stages; pass i covers
// bits [lo_i, lo_i + k_i), listed from bit 0 up.
PL_HD int ntt_plan(int L, NttPass* passes) {
  int np = (L + PL_NTT_TILE_LOG - 1) / PL_NTT_TILE_LOG;
  if (np == 0) return 0;
  int base = L / np, extra = L % np, lo = 0;
  for (int i = 0; i < np; i++) {
    int k = base + (i < extra ? 1 : 0);
    int logG = PL_NTT_TILE_LOG - k;
    if (logG > lo) logG = lo;
    passes[i].L = L;
    passes[i].lo = lo;
    passes[i].k = k;
    passes[i].logG = logG;
    // the lowest pass fills its block with sub-tiles (PL_NTT_LOW_SUB)
    int logS = lo == 0 && PL_NTT_LOW_SUB ? PL_NTT_TILE_LOG - k : 0;
    passes[i].logS = logS < L - k ? logS : L - k;
    lo += k;
  }
  return np;
}

PL_HD uint64_t bitrev(uint64_t x, int L) {
  uint64_t r = 0;
  for (int i = 0; i < L; i++) {
    r = (r << 1) | (x & 1);
    x >>= 1;
  }
  return r;
}

// The passes' arithmetic is lazy: an element is any value in [0, 2r) of
// its residue, so a multiplication by a twiddle (< r) skips mont_mul's
// last conditional subtraction (mont_mul_2p). A pass reads values under
// 2r and writes them so; the last pass of an NTT stores them reduced
// (k_ntt_pass's `last`), so what an NTT returns is in [0, r).
// -DPL_NTT_LAZY=0 builds the reduced arithmetic instead (A/B runs).
#ifndef PL_NTT_LAZY
#define PL_NTT_LAZY 1
#endif
#if PL_NTT_LAZY
template <class Fr>
PL_HD Fr lazy_add(const Fr& a, const Fr& b) { return Fr::add_2p(a, b); }
template <class Fr>
PL_HD Fr lazy_sub(const Fr& a, const Fr& b) { return Fr::sub_2p(a, b); }
// x w for x < 2r and a twiddle w < r, in [0, 2r): w is mont_mul's
// multiplicand, whose bound the rounds need.
template <class Fr>
PL_HD Fr lazy_mul(const Fr& x, const Fr& w) { return Fr::mont_mul_2p(w, x); }
#else
template <class Fr>
PL_HD Fr lazy_add(const Fr& a, const Fr& b) { return a + b; }
template <class Fr>
PL_HD Fr lazy_sub(const Fr& a, const Fr& b) { return a - b; }
template <class Fr>
PL_HD Fr lazy_mul(const Fr& x, const Fr& w) { return x * w; }
#endif

// What the last pass of an NTT stores: the element reduced and, with
// div_log = L (an inverse NTT off the coset), divided by n = 2^L on the
// way (Field::div_pow2, 8 products an element), where a separate pass
// of multiplications by 1/n took 0.28 ms at 2^24 (docs/design/ntt.md).
template <class Fr>
PL_HD Fr ntt_out(const Fr& a, int div_log) {
  Fr r = a;
  for (int k = div_log; k > 0; k -= 31) r = Fr::div_pow2(r, k < 31 ? k : 31);
  return r.reduced();
}

// Butterflies on values (the pair step's).
template <class Fr>
PL_HD void butterfly_dif(Fr& u, Fr& v, const Fr& w) {
  Fr s = lazy_add(u, v);
  v = lazy_mul(lazy_sub(u, v), w);
  u = s;
}

template <class Fr>
PL_HD void butterfly_dit(Fr& u, Fr& v, const Fr& w) {
  Fr t = lazy_mul(v, w);
  v = lazy_sub(u, t);
  u = lazy_add(u, t);
}

// Tile element t's slot in shared memory. On the lowest pass (low) bits
// 4-5 of t are folded into bits 0-1: its quad step of stages 0-1 puts a
// warp's rows 4 apart and the step of stages 2-3 numbered for the unit
// twiddles (ntt_units_map) 16 apart, on one bank group either way, which
// took 32 wavefronts an access instead of 8 (TestNTTLayout). Swizzling
// the upper passes too, whose stage-0 step takes 16, was slower
// (docs/design/ntt.md). -DPL_NTT_SWIZZLE=0 leaves slots as they are
// (A/B).
#ifndef PL_NTT_SWIZZLE
#define PL_NTT_SWIZZLE 1
#endif
PL_HD uint32_t ntt_slot(bool low, uint32_t t) { return PL_NTT_SWIZZLE && low ? t ^ ((t >> 4) & 3) : t; }

// Whether quad step mlo of pass p numbers its quads so that those whose
// twiddles w0 and w2 are 1 fill whole warps. On the lowest pass (lo = 0,
// one column) quad qq = (hi << mlo) | low of a sub-tile has w0 = w2 = 1
// when low = 0: every quad at mlo = 0, a 2^mlo-th of them above. Thread
// r = (low, sub, hi) from its top bit down puts them first, 2^(logS + k
// - 2 - mlo) of them, which must be whole warps of 32 (with sub-tiles
// only: logS > 0 implies lo = 0).
PL_HD bool ntt_units_map(const NttPass& p, int mlo) {
  return p.logS > 0 && mlo >= 2 && p.logS + p.k - 2 - mlo >= 5;
}

// quad r (0 <= r < tile/4) of stages mlo, mlo+1 in block b: tile rows
// t[0..3] = j0, j0+2^mlo, j0+2^(mlo+1), j0+3*2^mlo (of r's sub-tile)
// and the twiddle exponents of stage mlo+1 for lower rows j0 (e[0]) and
// j0+2^mlo (e[1]), and of stage mlo (e[2], shared by its two
// butterflies).
PL_HD void ntt_quad(const NttPass& p, uint64_t b, uint32_t r, int mlo, uint32_t t[4], uint64_t e[3]) {
  const uint64_t lblocks = 1ull << (p.lo - p.logG);
  uint64_t lb = b & (lblocks - 1);
  uint32_t g = r & ((1u << p.logG) - 1);
  uint32_t qq = r >> p.logG;
  uint32_t sub = 0;  // the sub-tile's first row
  if (ntt_units_map(p, mlo)) {
    // r = (low, sub, hi) from the top bit down; qq = (hi << mlo) | low
    const int hib = p.k - 2 - mlo;
    sub = ((r >> hib) & ((1u << p.logS) - 1)) << p.k;
    qq = ((r & ((1u << hib) - 1)) << mlo) | (r >> (hib + p.logS));
  } else if (p.logS) {
    sub = (r >> (p.k - 2)) << p.k;
    qq &= (1u << (p.k - 2)) - 1;
  }
  uint32_t low = qq & ((1u << mlo) - 1);
  uint32_t j0 = ((qq >> mlo) << (mlo + 2)) | low;
  for (int i = 0; i < 4; i++) t[i] = sub | ((j0 | ((uint32_t)i << mlo)) << p.logG) | g;
  uint64_t l = (lb << p.logG) | g;
  const int mhi = mlo + 1;
  const uint32_t mask_hi = (1u << mhi) - 1, mask_lo = (1u << mlo) - 1;
  e[0] = ((((uint64_t)(j0 & mask_hi)) << p.lo) | l) << (p.L - 1 - p.lo - mhi);
  e[1] = ((((uint64_t)((j0 | (1u << mlo)) & mask_hi)) << p.lo) | l) << (p.L - 1 - p.lo - mhi);
  e[2] = ((((uint64_t)(j0 & mask_lo)) << p.lo) | l) << (p.L - 1 - p.lo - mlo);
}

// A quad's tile rows and its three twiddles, loaded. A quad of the pass
// over the lowest bits with e[0] = e[2] = 0 (every quad of its stages 0
// and 1, a quarter of stages 2 and 3 ...) has 3 of its 4 twiddles equal
// to 1, and the step skips those loads and multiplications (`units`)
// where such quads fill whole warps (ntt_units_map), so that the branch
// is the same across a warp: stages 0-1 (1/16 of an NTT's
// multiplications) and, with sub-tiles, stages 2-3 (a further ~1.7%).
template <class Fr>
struct NttQuad {
  uint32_t t[4];
  Fr w0, w1, w2;
  bool units;
};

PL_HD bool ntt_quad_units(const NttPass& p, int mlo, const uint64_t e[3]) {
  return p.lo == 0 && (mlo == 0 || (ntt_units_map(p, mlo) && e[0] == 0 && e[2] == 0));
}

template <class Fr>
PL_HD void ntt_quad_load(const NttPass& p, uint64_t b, uint32_t r, int mlo, const Fr* tw, NttQuad<Fr>* q) {
  uint64_t e[3];
  ntt_quad(p, b, r, mlo, q->t, e);
  q->units = ntt_quad_units(p, mlo, e);
  q->w1 = tw[e[1]];
  if (!q->units) {
    q->w0 = tw[e[0]];
    q->w2 = tw[e[2]];
  }
}

// The quad's two stages on its rows a[0..3] (tile rows q.t[0..3]).
template <bool DIF, class Fr>
PL_HD void ntt_quad_math(Fr a[4], const NttQuad<Fr>& q) {
  Fr a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  if (q.units) {
    if (DIF) {
      Fr u = a0, v = a2;
      a0 = lazy_add(u, v); a2 = lazy_sub(u, v);
      u = a1; v = a3;
      a1 = lazy_add(u, v); a3 = lazy_mul(lazy_sub(u, v), q.w1);
      u = a0; v = a1;
      a0 = lazy_add(u, v); a1 = lazy_sub(u, v);
      u = a2; v = a3;
      a2 = lazy_add(u, v); a3 = lazy_sub(u, v);
    } else {
      Fr u = a0, v = a1;
      a0 = lazy_add(u, v); a1 = lazy_sub(u, v);
      u = a2; v = a3;
      a2 = lazy_add(u, v); a3 = lazy_sub(u, v);
      u = a0; v = a2;
      a0 = lazy_add(u, v); a2 = lazy_sub(u, v);
      u = a1; v = lazy_mul(a3, q.w1);
      a1 = lazy_add(u, v); a3 = lazy_sub(u, v);
    }
  } else {
    if (DIF) {
      Fr u = a0, v = a2;
      a0 = lazy_add(u, v); a2 = lazy_mul(lazy_sub(u, v), q.w0);
      u = a1; v = a3;
      a1 = lazy_add(u, v); a3 = lazy_mul(lazy_sub(u, v), q.w1);
      u = a0; v = a1;
      a0 = lazy_add(u, v); a1 = lazy_mul(lazy_sub(u, v), q.w2);
      u = a2; v = a3;
      a2 = lazy_add(u, v); a3 = lazy_mul(lazy_sub(u, v), q.w2);
    } else {
      Fr u = a0, v = lazy_mul(a1, q.w2);
      a0 = lazy_add(u, v); a1 = lazy_sub(u, v);
      u = a2; v = lazy_mul(a3, q.w2);
      a2 = lazy_add(u, v); a3 = lazy_sub(u, v);
      u = a0; v = lazy_mul(a2, q.w0);
      a0 = lazy_add(u, v); a2 = lazy_sub(u, v);
      u = a1; v = lazy_mul(a3, q.w1);
      a1 = lazy_add(u, v); a3 = lazy_sub(u, v);
    }
  }
  a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
}

}  // namespace pl
