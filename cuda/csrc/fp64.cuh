// fp64.cuh: BLS12-381's Fp's Montgomery multiplication on the FP64 pipe, an
// experiment no production kernel uses: alone it runs 0.87x the integer
// one, and beside it adds at most 7% (docs/design/field-arithmetic.md).
//
// Why it was tried: the G1 accumulation keeps the integer multiplier (the
// fmaheavy pipe, where every IMAD issues) 89% busy while it uses 36% of
// the issue slots. The FP64 units are a pipe of their own: a warp whose
// multiplications run there can issue while the integer warps wait on
// fmaheavy. This file is the arithmetic; cudabench -fpmul times it alone,
// against mont_mul, and with both kinds of warps on one SM.
//
// Representation: x = sum_j v[j] 2^(48j) over eight doubles holding
// integers, "normalized" when |v[j]| <= 2^47 (signed digits). The radix is
// Fp's, R = 2^384 = (2^48)^8, so Fp64::mont_mul(a, b) = a b / R mod p, the
// same function as Fp::mont_mul, on another representation of the same
// residues. Values may be negative: the bounds are on |x|.
//
// A product of two digits, |x y| < 2^96, splits exactly into a high and a
// low part with two FMAs (round to nearest, IEEE): with ys = y / 2^48
// (exact), h = fma(x, ys, acc) rounds acc + x y / 2^48 to an integer
// while acc stays in [2^52, 2^53), where the doubles are the integers;
// d = h - acc is that integer part, exactly, and fma(x, ys, -d) =
// (x y - d 2^48) / 2^48 is the rest, |.| <= 1/2, exact (48 fractional
// bits). So a column keeps its high parts in acc, biased by B = 1.5 2^52,
// and the low parts of the column below in lo, scaled by 2^-48: four
// FP64 operations a product (split), no integer instruction.
//
// Every function is __host__ __device__ (fma is IEEE on both): the host
// check runs the same code against gnark-crypto.
#pragma once
#include <math.h>
#include "curves.cuh"

namespace pl {

struct Fp64 {
  using Fp = bls12_381::Fp;  // its constants are this field's
  static constexpr int N = 8;
  static constexpr double W = 281474976710656.0;           // 2^48
  static constexpr double IW = 1.0 / 281474976710656.0;    // 2^-48, exact
  static constexpr double B = 6755399441055744.0;          // 1.5 2^52
  static constexpr double BW = B * 281474976710656.0;      // 1.5 2^100
  static constexpr double MU = (double)0xfffcfffcfffdull;  // -1/p mod 2^48
  double v[N];

  // p's digits, unsigned (< 2^48).
  PL_HD static double mod(int j) {
    const double m[N] = {(double)0xffffffffaaabull, (double)0xb153ffffb9feull,
                         (double)0xf6241eabfffeull, (double)0x6730d2a0f6b0ull,
                         (double)0x4b84f38512bfull, (double)0x434bacd76477ull,
                         (double)0xe69a4b1ba7b6ull, (double)0x1a0111ea397full};
    return m[j];
  }

  // Fp's limbs (a value < 2p) to normalized digits of the same value.
  PL_HD static Fp64 from(const Fp& x) {
    Fp64 r;
    double carry = 0;
    PL_UNROLL for (int j = 0; j < N; j++) {
      const int w = (3 * j) / 2;  // the 32-bit limb digit j starts in
      const uint64_t pair = (uint64_t)x.v[w] | (uint64_t)x.v[w + 1] << 32;
      const uint64_t d = (j & 1 ? pair >> 16 : pair) & 0xffffffffffffull;
      const double c = (double)d + carry;  // exact: < 2^48 + 1
      if (j == N - 1) {
        r.v[j] = c;
      } else {
        carry = split(c, r.v[j]);
      }
    }
    return r;
  }

  // The residue as Fp's canonical limbs (< p), for |x| < 2p.
  PL_HD Fp to_fp() const {
    int64_t d[N];
    PL_UNROLL for (int j = 0; j < N; j++) d[j] = (int64_t)v[j];
    carry_up(d);  // the sign is then the top digit's
    if (d[N - 1] < 0) {  // x in (-2p, 0): add 2p
      PL_UNROLL for (int j = 0; j < N; j++) d[j] += 2 * (int64_t)mod(j);
      carry_up(d);
    }
    Fp r;
    PL_UNROLL for (int i = 0; i < Fp::N; i++) {
      const int j = (32 * i) / 48, s = (32 * i) % 48;
      uint64_t w = (uint64_t)d[j] >> s;
      if (s > 16 && j + 1 < N) w |= (uint64_t)d[j + 1] << (48 - s);
      r.v[i] = (uint32_t)w;
    }
    Fp::reduce_once(r.v);  // [0, 2p) to [0, p)
    return r;
  }

  // Integer digits 0..6 into [0, 2^48), each carry (an arithmetic shift:
  // floor) into the next digit.
  PL_HD static void carry_up(int64_t d[N]) {
    PL_UNROLL for (int j = 0; j < N - 1; j++) {
      d[j + 1] += d[j] >> 48;
      d[j] &= ((int64_t)1 << 48) - 1;
    }
  }

  // c = q 2^48 + r with q = round(c / 2^48), |r| <= 2^47, for an integer
  // |c| < 2^53 (q stays within B's binade): returns q, sets r.
  PL_HD static double split(double c, double& r) {
    const double q = fma(c, IW, B) - B;
    r = fma(q, -W, c);
    return q;
  }

  // One product into its columns: acc (biased high parts of the column
  // above) and lo (low parts, scaled by 2^-48). ys = y / 2^48.
  PL_HD static void prod(double x, double ys, double& acc, double& lo) {
    const double h = fma(x, ys, acc);
    const double d = h - acc;
    lo += fma(x, ys, -d);
    acc = h;
  }

  // Montgomery multiplication, a b / 2^384 mod p, product scanning with
  // the reduction interleaved: all 64 digit products first, then column k
  // (k < 8) is finished (its high parts, low parts and the carry from
  // below), its digit r taken mod± 2^48, m_k = r (-1/p) mod± 2^48, and m_k p
  // added, which zeroes it; columns 8..15 are the result.
  //
  // Bounds, for normalized a, b with |a|, |b| < p: a digit product is
  // < 2^94 in magnitude, so a column's high parts from a b are < 8 2^46 and
  // from m p (|m| <= 2^47, p's digits < 2^48) < 8 2^47: acc stays within
  // B +- 2^51, in [2^52, 2^53); lo collects at most 16 parts of <= 1/2. A
  // column is then < 2^52 + 2^51 + 2^48 (an exact double), and the result
  // is (a b + M p) / R with |M| < R/2 (1 + 2^-47): |a b| / R < p^2 / R <
  // 0.11 p (p / R < 0.102), so |result| < 0.62 p, below p again: chains of
  // multiplications stay in range. Column 15 takes no low parts (the
  // products reach column 14) and is the top digit whole (|result| / 2^336
  // < 2^45).
  PL_HD static Fp64 mont_mul(const Fp64& a, const Fp64& b) {
    double bs[N];
    PL_UNROLL for (int j = 0; j < N; j++) bs[j] = b.v[j] * IW;
    double acc[2 * N], lo[2 * N];
    PL_UNROLL for (int k = 0; k < 2 * N; k++) {
      acc[k] = B;
      lo[k] = 0;
    }
    PL_UNROLL for (int i = 0; i < N; i++) {
      PL_UNROLL for (int j = 0; j < N; j++) prod(a.v[i], bs[j], acc[i + j + 1], lo[i + j]);
    }
    double carry = 0;
    PL_UNROLL for (int k = 0; k < N; k++) {
      const double c = fma(lo[k], W, acc[k] - B) + carry;
      double r;
      const double q = split(c, r);
      // m = r mu mod± 2^48: the high part of r mu (|.| < 2^95) rounded to
      // a multiple of 2^48 by the bias BW, then the exact rest
      const double s = fma(r, MU, BW) - BW;
      const double m = fma(r, MU, -s);
      // m p_0 the same way: r + its low part is 0 or +-2^48 (r + m p_0 = 0
      // mod 2^48), so the carry is exact
      const double s0 = fma(m, mod(0), BW) - BW;
      const double l0 = fma(m, mod(0), -s0);
      carry = fma(s0 + (r + l0), IW, q);
      PL_UNROLL for (int j = 1; j < N; j++) prod(m, mod(j) * IW, acc[k + j + 1], lo[k + j]);
    }
    Fp64 out;
    PL_UNROLL for (int k = N; k < 2 * N - 1; k++) {
      const double c = fma(lo[k], W, acc[k] - B) + carry;
      carry = split(c, out.v[k - N]);
    }
    out.v[N - 1] = (acc[2 * N - 1] - B) + carry;
    return out;
  }
};

}  // namespace pl
