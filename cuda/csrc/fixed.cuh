// fixed.cuh: fixed-base batch scalar multiplication, the per-thread pieces
// shared by the kernels (fixed.cu) and the host emulation the CPU tests
// run (cuda/internal/hostcheck). A key setup multiplies the generator of
// G1 or G2 by millions of scalars; the generator never changes, so its
// multiples are precomputed once: with signed c-bit digits d_w of the
// scalar k (k = sum_w d_w 2^(cw), |d_w| <= 2^(c-1)),
//
//   k·G = sum_w sign(d_w) · table[w·2^(c-1) + |d_w| - 1],
//   table[w·2^(c-1) + m - 1] = m·2^(cw)·G   (m = 1..2^(c-1)),
//
// W = ceil(256/c) mixed additions a scalar and no doublings. The sums are
// XYZZ; they go to affine form in batches of k points a thread, one field
// inversion (Fermat) for the batch (Montgomery's trick on ZZZ; 1/ZZ is
// ZZ²·(1/ZZZ)², as ZZ³ = ZZZ²). The point at infinity (a zero scalar)
// comes out as (0, 0), gnark-crypto's encoding.
#pragma once
#include "msm.cuh"

namespace pl {

// a^(p-2) = 1/a for a != 0 (0 for 0), p the modulus of Field<P>.
template <class P>
PL_HD_CALL Field<P> field_inv(const Field<P>& a) {
  Field<P> r = Field<P>::one();
  for (int limb = P::N - 1; limb >= 0; limb--) {
    uint32_t e = P::mod(limb) - (limb == 0 ? 2u : 0u);  // p's low limb is odd and > 2
    for (int bit = 31; bit >= 0; bit--) {
      r = r.sqr();
      if ((e >> bit) & 1) r = r * a;
    }
  }
  return r;
}

PL_HD Fp inv(const Fp& a) { return field_inv<FpParams>(a); }

// 1/(c0 + c1 u) = (c0 - c1 u)/(c0² + c1²), as u² = -1.
PL_HD Fp2 inv(const Fp2& a) {
  Fp t = inv(a.c0.sqr() + a.c1.sqr());
  Fp2 r;
  r.c0 = a.c0 * t;
  r.c1 = (a.c1 * t).neg();
  return r;
}

// k·G for the canonical scalar s (256 bits, little-endian 32-bit limbs,
// s < 2^255) from the table of G's multiples for c-bit signed digits.
template <class F>
PL_HD XYZZ<F> fixed_mul(const Affine<F>* table, int c, const uint32_t s[8]) {
  const int W = msm_windows(c);
  const uint32_t half = 1u << (c - 1);
  XYZZ<F> acc = XYZZ<F>::inf();
  uint32_t carry = 0;
  for (int w = 0; w < W; w++) {
    uint32_t raw = scalar_bits(s, w * c, c) + carry;
    bool neg = raw > half;
    uint32_t mag = neg ? (1u << c) - raw : raw;
    carry = neg ? 1 : 0;
    if (mag != 0) acc.add_affine(table[(size_t)w * half + mag - 1], neg);
  }
  return acc;
}

// Points [lo, hi) of in to affine form into out, with one inversion;
// scratch holds hi - lo elements for the prefix products.
template <class F>
PL_HD void fixed_to_affine(const XYZZ<F>* in, Affine<F>* out, F* scratch, size_t lo, size_t hi) {
  F prod = F::one();
  for (size_t i = lo; i < hi; i++) {
    scratch[i - lo] = prod;
    if (!in[i].is_inf()) prod = prod * in[i].zzz;
  }
  F t = inv(prod);  // 1 / prod of the ZZZ of [lo, i] for i going down
  for (size_t i = hi; i-- > lo;) {
    const XYZZ<F>& p = in[i];
    if (p.is_inf()) {
      out[i].x = F::zero();
      out[i].y = F::zero();
      continue;
    }
    F izzz = t * scratch[i - lo];
    t = t * p.zzz;
    F izz = (p.zz * izzz).sqr();
    out[i].x = p.x * izz;
    out[i].y = p.y * izzz;
  }
}

}  // namespace pl
