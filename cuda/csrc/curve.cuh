// curve.cuh: short Weierstrass points (a = 0) over F = Fp (G1) or Fp2 (G2).
// Affine bases use gnark-crypto's layout (X then Y, Montgomery form,
// infinity is X = Y = 0); accumulators are XYZZ (x = X/ZZ, y = Y/ZZZ,
// infinity is ZZ = 0), formulas from the Explicit-Formulas Database
// (madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1).
#pragma once
#include "curves.cuh"

namespace pl {

// y3 = a b - c d, the last step of every formula below: with PL_Y3_LAZY
// (field.cuh; the default) F::mul_sub_mul, one Montgomery reduction
// instead of two for Fp (G1: a mixed addition 2,748 -> 2,604 products).
template <class F>
PL_HD F y3_of(const F& a, const F& b, const F& c, const F& d) {
#if PL_Y3_LAZY
  return F::mul_sub_mul(a, b, c, d);
#else
  return a * b - c * d;
#endif
}

template <class F>
struct Affine {
  F x, y;
  PL_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

// Whether p is on y^2 = x^3 + b (infinity is), b a curve's b1() or b2()
// (curves.cuh).
template <class F>
PL_HD bool on_curve(const Affine<F>& p, const F& b) {
  return p.is_inf() || p.y.sqr() == p.x.sqr() * p.x + b;
}

template <class F>
struct XYZZ {
  F x, y, zz, zzz;

  PL_HD static XYZZ inf() {
    XYZZ r;
    r.x = F::one();
    r.y = F::one();
    r.zz = F::zero();
    r.zzz = F::zero();
    return r;
  }
  PL_HD bool is_inf() const { return zz.is_zero(); }

  PL_HD static XYZZ from_affine(const Affine<F>& a) {
    if (a.is_inf()) return inf();
    XYZZ r;
    r.x = a.x;
    r.y = a.y;
    r.zz = F::one();
    r.zzz = F::one();
    return r;
  }

  // mdbl-2008-s-1 on an affine point
  PL_HD_CALL static XYZZ dbl_affine(const F& x1, const F& y1) {
    XYZZ r;
    F u = y1.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = x1 * v;
    F xx = x1.sqr();
    F m = xx.dbl() + xx;
    r.x = m.sqr() - s.dbl();
    r.y = y3_of(m, s - r.x, w, y1);
    r.zz = v;
    r.zzz = w;
    return r;
  }

  // dbl-2008-s-1
  PL_HD_CALL XYZZ dbl() const {
    if (is_inf()) return *this;
    XYZZ r;
    F u = y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = x * v;
    F xx = x.sqr();
    F m = xx.dbl() + xx;
    r.x = m.sqr() - s.dbl();
    r.y = y3_of(m, s - r.x, w, y);
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // this += (x2, y2) (y2 already negated when needed); (x2, y2) must not be
  // infinity.
  PL_HD_CALL void add_affine(const F& x2, const F& y2) {
    if (is_inf()) {
      x = x2;
      y = y2;
      zz = F::one();
      zzz = F::one();
      return;
    }
    F p = x2 * zz - x;
    F r = y2 * zzz - y;
    if (p.is_zero()) {
      if (r.is_zero()) {
        *this = dbl_affine(x2, y2);
      } else {
        *this = inf();
      }
      return;
    }
    F pp = p.sqr();
    F ppp = p * pp;
    F q = x * pp;
    F x3 = r.sqr() - ppp - q.dbl();
    y = y3_of(r, q - x3, y, ppp);
    x = x3;
    zz = zz * pp;
    zzz = zzz * ppp;
  }

  // One call site for the addition: with two (one per sign) the MSM's
  // accumulation ran 1.5-1.8x slower on the H200 (docs/design/msm.md).
  PL_HD void add_affine(const Affine<F>& a, bool negate) {
    if (a.is_inf()) return;
    const F y = negate ? a.y.neg() : a.y;
    add_affine(a.x, y);
  }

  // add-2008-s
  PL_HD_CALL void add(const XYZZ& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    F u1 = x * q.zz;
    F u2 = q.x * zz;
    F s1 = y * q.zzz;
    F s2 = q.y * zzz;
    F p = u2 - u1;
    F r = s2 - s1;
    if (p.is_zero()) {
      if (r.is_zero()) {
        *this = dbl();
      } else {
        *this = inf();
      }
      return;
    }
    F pp = p.sqr();
    F ppp = p * pp;
    F qq = u1 * pp;
    F x3 = r.sqr() - ppp - qq.dbl();
    y = y3_of(r, qq - x3, s1, ppp);
    x = x3;
    zz = zz * q.zz * pp;
    zzz = zzz * q.zzz * ppp;
  }
};

}  // namespace pl
