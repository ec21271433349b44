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
// inversion (field_inv) for the batch (Montgomery's trick on ZZZ; 1/ZZ is
// ZZ²·(1/ZZZ)², as ZZ³ = ZZZ²). The point at infinity (a zero scalar)
// comes out as (0, 0), gnark-crypto's encoding.
#pragma once
#include "msm.cuh"

namespace pl {

// 1/a (0 for 0) by the binary extended Euclidean algorithm, variable
// time (what is inverted here, batch products of denominators and of
// points' ZZZ, is not secret). Invariants x1·A = u·R² and x2·A = v·R²
// (mod p) for A = aR, the Montgomery form's integer: starting from
// (u, x1) = (A, R² mod p) and (v, x2) = (p, 0), whichever of u and v
// reaches 1 leaves R²/A = a^-1·R, the inverse in Montgomery form. About
// 2·log2(p) halvings and log2(p) subtractions of N-limb integers instead
// of the ~570 dependent products of a^(p-2), whose latency the
// batch-affine MSM pays once a level: with it the G1 2^20 batch-affine
// MSM (5 levels) went 16.5 -> 15.4 ms on the H200
// (docs/design/field-arithmetic.md).
template <class P>
PL_HD_CALL Field<P> field_inv(const Field<P>& a) {
  constexpr int N = P::N;
  if (a.is_zero()) return a;
  uint32_t u[N], v[N], x1[N], x2[N];
  PL_UNROLL for (int i = 0; i < N; i++) {
    u[i] = a.v[i];
    v[i] = P::mod(i);
    x1[i] = P::r2(i);
    x2[i] = 0;
  }
  // x / 2 mod p: (x + p) / 2 when x is odd (x + p < 2p < 2^(32N)).
  auto halve = [](uint32_t x[N]) {
    const uint32_t odd = x[0] & 1;
    uint64_t c = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      c += (uint64_t)x[i] + (odd ? P::mod(i) : 0u);
      x[i] = (uint32_t)c;
      c >>= 32;
    }
    PL_UNROLL for (int i = 0; i < N - 1; i++) x[i] = (x[i] >> 1) | (x[i + 1] << 31);
    x[N - 1] = (x[N - 1] >> 1) | ((uint32_t)c << 31);
  };
  auto is_one = [](const uint32_t x[N]) {
    uint32_t acc = x[0] ^ 1u;
    PL_UNROLL for (int i = 1; i < N; i++) acc |= x[i];
    return acc == 0;
  };
  // x -= y, returning the borrow
  auto sub = [](uint32_t x[N], const uint32_t y[N]) {
    uint64_t borrow = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      const uint64_t d = (uint64_t)x[i] - y[i] - borrow;
      x[i] = (uint32_t)d;
      borrow = (d >> 32) & 1;
    }
    return (uint32_t)borrow;
  };
  // x -= y mod p (x, y < p)
  auto sub_mod = [&](uint32_t x[N], const uint32_t y[N]) {
    if (sub(x, y)) {
      uint64_t c = 0;
      PL_UNROLL for (int i = 0; i < N; i++) {
        c += (uint64_t)x[i] + P::mod(i);
        x[i] = (uint32_t)c;
        c >>= 32;
      }
    }
  };
  while (!is_one(u) && !is_one(v)) {
    while (!(u[0] & 1)) {
      PL_UNROLL for (int i = 0; i < N - 1; i++) u[i] = (u[i] >> 1) | (u[i + 1] << 31);
      u[N - 1] >>= 1;
      halve(x1);
    }
    while (!(v[0] & 1)) {
      PL_UNROLL for (int i = 0; i < N - 1; i++) v[i] = (v[i] >> 1) | (v[i + 1] << 31);
      v[N - 1] >>= 1;
      halve(x2);
    }
    // u >= v: u -= v, else v -= u (the trial subtraction's borrow says)
    uint32_t t[N];
    PL_UNROLL for (int i = 0; i < N; i++) t[i] = u[i];
    if (!sub(t, v)) {
      PL_UNROLL for (int i = 0; i < N; i++) u[i] = t[i];
      sub_mod(x1, x2);
    } else {
      sub(v, u);
      sub_mod(x2, x1);
    }
  }
  Field<P> r;
  PL_UNROLL for (int i = 0; i < N; i++) r.v[i] = is_one(u) ? x1[i] : x2[i];
  return r;
}

template <class P>
PL_HD Field<P> inv(const Field<P>& a) {
  return field_inv<P>(a);
}

// 1/(c0 + c1 u) = (c0 - c1 u)/(c0² + c1²), as u² = -1.
template <class Fp>
PL_HD Fp2T<Fp> inv(const Fp2T<Fp>& a) {
  Fp t = inv(a.c0.sqr() + a.c1.sqr());
  Fp2T<Fp> r;
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
