// field.cuh: Montgomery arithmetic over a prime field of N 32-bit limbs
// (R = 2^(32N)), Field<P>, and its quadratic extension Fp2T<Fp>, both
// templated on the modulus's parameters P (curves.cuh instantiates them:
// BLS12-381's Fr (8 limbs) and Fp (12), BN254's Fr and Fp (8 each)). The
// limb layout equals gnark-crypto's fr.Element / fp.Element in memory
// (little-endian), so elements move between Go and the device without
// conversion.
//
// What a modulus must satisfy, and what each shortcut needs, is derived
// from its limbs here and checked at compile time (Field's constants and
// static_asserts): a shortcut is on exactly for the moduli it holds for.
//
// Every function is __host__ __device__: the same code is compiled by g++
// for the host-side tests (cuda/internal/hostcheck) and by nvcc.
#pragma once
#include <stdint.h>

// The arithmetic the kernels use (docs/design/field-arithmetic.md): Fp
// squarings by mont_sqr, Fp2 multiplications by mul_lazy, and in the MSM
// kernels each Fp2 multiplication or squaring one call. On the H200, in
// one A/B run against the plain arithmetic on the same inputs: G2 MSM
// 2^22 174.7 -> 138.3 ms, over a precomputed table 124.1 -> 98.8 ms; G1
// 2^24 139.7 -> 137.1 ms, over a table 114.3 -> 112.1 ms.
// -DPL_PLAIN_ARITHMETIC builds the plain one instead (squarings by
// mont_mul, three calls of the Fp multiplication an Fp2 one), for A/B
// runs (scripts/kernel-variants.sh); the host check tests both
// (hostcheck.cpp and variants.cpp).
#if !defined(PL_PLAIN_ARITHMETIC)
#ifndef PL_SQR_DEDICATED
#define PL_SQR_DEDICATED 1
#endif
#ifndef PL_FP2_LAZY
#define PL_FP2_LAZY 1
#endif
#ifndef PL_FP2_CALL
#define PL_FP2_CALL 1
#endif
#endif

// PL_Y3_LAZY=0 builds the point formulas' y = a b - c d with two full
// multiplications instead of mul_sub_mul's one reduction (A/B runs).
#ifndef PL_Y3_LAZY
#define PL_Y3_LAZY 1
#endif

// PL_FR_LOW_LIMBS=0 builds mont_mul without the shortcut of a modulus
// whose two low limbs are 1 and 2^32 - 1 (BLS12-381's Fr; A/B runs).
#ifndef PL_FR_LOW_LIMBS
#define PL_FR_LOW_LIMBS 1
#endif
// PL_FR_HI1_BORROW=0 takes the shortcut's high limb of m (2^32 - 1) from a
// compare instead of a borrow (A/B runs).
#ifndef PL_FR_HI1_BORROW
#define PL_FR_HI1_BORROW 1
#endif

#if defined(__CUDACC__)
#define PL_HD __host__ __device__ __forceinline__
// point operations stay out of line: one copy per kernel keeps nvcc's
// compile time and the code size reasonable
#define PL_HD_CALL __host__ __device__ __noinline__
#define PL_UNROLL _Pragma("unroll")
#else
#define PL_HD inline
#define PL_HD_CALL inline
#define PL_UNROLL
#endif

// PL_PTX: the carry chains as PTX instructions (device code). Without it
// (host code, or -DPL_NO_PTX on the device) they run with an explicit carry.
#if defined(__CUDA_ARCH__) && !defined(PL_NO_PTX)
#define PL_PTX 1
#endif

namespace pl {

#if defined(__CUDACC__)
// -1/p mod 2^32 when it is -1 (p = 1 mod 2^32: BLS12-381's Fr), read by
// mont_mul from constant memory (mont_m).
static __constant__ uint32_t pl_fr_inv = 0xffffffffu;
#endif

// The bit length of a limb (constexpr: the moduli's properties below).
PL_HD constexpr int bitlen32(uint32_t x) {
  int b = 0;
  while (x) {
    b++;
    x >>= 1;
  }
  return b;
}

// A field's parameters P (curves.cuh): N, the limbs; INV = -1/p mod 2^32;
// mod(i), one(i) (R mod p) and r2(i) (R^2 mod p), constexpr limb i of
// each. Field<P> derives the rest from them.

// Carry chains for the multiplication. A chain is a run of additions whose
// carry flows from one step to the next. On the device each step is one
// PTX instruction and the carry is the CC flag (nvcc keeps volatile asm in
// order; ptxas fuses a mad.lo.cc / madc.hi.cc pair on the same operands
// into one IMAD.WIDE.U32.X). On the host the same steps keep the carry in
// `cc`, so the host check runs the very algorithm the device runs.
struct Chain {
#if !defined(PL_PTX)
  uint32_t cc = 0;
  PL_HD uint32_t step(uint32_t x, uint32_t y, uint32_t cin) {
    uint64_t t = (uint64_t)x + y + cin;
    cc = (uint32_t)(t >> 32);
    return (uint32_t)t;
  }
#endif
  // (hi:lo) += a*b, no carry in; carry out.
  PL_HD void mad(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b) {
#if defined(PL_PTX)
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
#else
    uint64_t p = (uint64_t)a * b;
    lo = step(lo, (uint32_t)p, 0);
    hi = step(hi, (uint32_t)(p >> 32), cc);
#endif
  }
  // (hi:lo) += a*b + carry; carry out.
  PL_HD void madc(uint32_t& lo, uint32_t& hi, uint32_t a, uint32_t b) {
#if defined(PL_PTX)
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
#else
    uint64_t p = (uint64_t)a * b;
    lo = step(lo, (uint32_t)p, cc);
    hi = step(hi, (uint32_t)(p >> 32), cc);
#endif
  }
  // x += y, no carry in; carry out.
  PL_HD void add(uint32_t& x, uint32_t y) {
#if defined(PL_PTX)
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
#else
    x = step(x, y, 0);
#endif
  }
  // x + y + carry; carry out.
  PL_HD uint32_t addc(uint32_t x, uint32_t y) {
#if defined(PL_PTX)
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    return r;
#else
    return step(x, y, cc);
#endif
  }
  // Subtraction chains (the borrow is the carry flag): x -= y, no borrow
  // in; borrow out.
  PL_HD void sub(uint32_t& x, uint32_t y) {
#if defined(PL_PTX)
    asm volatile("sub.cc.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
#else
    x = bstep(x, y, 0);
#endif
  }
  // x - y - borrow, the borrow of the subtraction before; the flag stays
  // as it was (PTX subc without .cc). Only after a subtraction: one
  // after an addition, reading its carry as the borrow, gave other
  // results on the device than here (docs/design/field-arithmetic.md).
  PL_HD uint32_t subc_keep(uint32_t x, uint32_t y) {
#if defined(PL_PTX)
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    return r;
#else
    return (uint32_t)((uint64_t)x - y - cc);
#endif
  }
  // x -= y + borrow; borrow out.
  PL_HD void subc(uint32_t& x, uint32_t y) {
#if defined(PL_PTX)
    asm volatile("subc.cc.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
#else
    x = bstep(x, y, cc);
#endif
  }
#if !defined(PL_PTX)
  PL_HD uint32_t bstep(uint32_t x, uint32_t y, uint32_t bin) {
    uint64_t t = (uint64_t)x - y - bin;
    cc = (uint32_t)(t >> 32) & 1;
    return (uint32_t)t;
  }
#endif
};

// 16-byte alignment (sizes unchanged: 32 and 48 bytes) lets loads and
// stores of elements use 128-bit instructions instead of 32-bit ones:
// NTT 2^24 5.80 -> 4.92 ms, G2 MSM 2^20 63 -> 58 ms on the H200. Device buffers
// come from cudaMalloc (256-byte aligned) at offsets of whole elements.
template <class P>
struct alignas(16) Field {
  typedef P Params;
  static constexpr int N = P::N;
  static constexpr int DEGREE = 1;  // over the prime field (Fp2T: 2)
  // p's bit length.
  static constexpr int BITS = 32 * (N - 1) + bitlen32(P::mod(N - 1));
  // What every function below takes: p odd, INV its Montgomery factor,
  // and a spare top bit, p < 2^(32N-1) (2p < R: sums of two values
  // under p, and the lazy [0, 2p) form, fit N limbs).
  static_assert(P::mod(0) & 1, "the modulus must be odd");
  static_assert((uint32_t)(P::mod(0) * P::INV) == 0xffffffffu, "INV must be -1/p mod 2^32");
  static_assert(BITS <= 32 * N - 1, "the modulus needs a spare top bit: p < 2^(32N-1)");
  // mont_mul's shortcut: p's limbs 0 and 1 are 1 and 2^32 - 1 (p = 1 -
  // 2^32 mod 2^64; BLS12-381's Fr). Then INV = -1.
  static constexpr bool LOW_LIMBS_1_FFFFFFFF =
      PL_FR_LOW_LIMBS && P::mod(0) == 1 && P::mod(1) == 0xffffffffu;
  // mont_sqr's bound, 3p < 2^(32N): p's top limb under 2^32 / 3 (BLS12-381's
  // and BN254's Fp, BN254's Fr; not BLS12-381's Fr, 3r = 1.36 * 2^256).
  static constexpr bool SQR_DEDICATED = P::mod(N - 1) < 0x55555554u;
  uint32_t v[N];

  PL_HD static Field zero() { Field r; PL_UNROLL for (int i = 0; i < N; i++) r.v[i] = 0; return r; }
  PL_HD static Field one() { Field r; PL_UNROLL for (int i = 0; i < N; i++) r.v[i] = P::one(i); return r; }
  PL_HD static Field raw_one() { Field r = zero(); r.v[0] = 1; return r; }
  PL_HD static Field r2() { Field r; PL_UNROLL for (int i = 0; i < N; i++) r.v[i] = P::r2(i); return r; }

  PL_HD bool is_zero() const {
    uint32_t acc = 0;
    PL_UNROLL for (int i = 0; i < N; i++) acc |= v[i];
    return acc == 0;
  }
  PL_HD bool operator==(const Field& o) const {
    uint32_t acc = 0;
    PL_UNROLL for (int i = 0; i < N; i++) acc |= v[i] ^ o.v[i];
    return acc == 0;
  }

  // The additions and subtractions run as carry chains (Chain): one
  // IADD3 a limb on sm_90, where the same sums written with 64-bit
  // integers took two or three (IADD3, IADD3.X and a LOP3 for the borrow
  // bit): NTT 2^24 1.09x, G1 MSM 2^24 1.06x on the H200
  // (docs/design/field-arithmetic.md). The borrow of a subtraction comes back as a mask, 0xffffffff
  // if it borrowed, else 0.
  //
  // Limb i of K p (K = 1 or 2).
  template <int K>
  PL_HD static uint32_t modk(int i) { return K == 1 ? P::mod(i) : mod2(i); }
  // r = a - K p over N limbs; the borrow mask.
  template <int K>
  PL_HD static uint32_t sub_mod(uint32_t r[N], const uint32_t a[N]) {
    Chain k;
    PL_UNROLL for (int i = 0; i < N; i++) {
      r[i] = a[i];
      if (i == 0) k.sub(r[i], modk<K>(0));
      else k.subc(r[i], modk<K>(i));
    }
    uint32_t mask = 0;
    k.subc(mask, 0);
    return mask;
  }
  // r += (K p) & mask over N limbs (no carry out: the callers' bounds).
  template <int K>
  PL_HD static void add_mod_masked(uint32_t r[N], uint32_t mask) {
    Chain k;
    k.add(r[0], modk<K>(0) & mask);
    PL_UNROLL for (int i = 1; i < N; i++) r[i] = k.addc(r[i], modk<K>(i) & mask);
  }
  // r = a - b over N limbs; the borrow mask.
  PL_HD static uint32_t sub_limbs(uint32_t r[N], const uint32_t a[N], const uint32_t b[N]) {
    Chain k;
    PL_UNROLL for (int i = 0; i < N; i++) {
      r[i] = a[i];
      if (i == 0) k.sub(r[i], b[0]);
      else k.subc(r[i], b[i]);
    }
    uint32_t mask = 0;
    k.subc(mask, 0);
    return mask;
  }
  // r = a + b over N limbs; the carry out.
  PL_HD static uint32_t add_limbs(uint32_t r[N], const uint32_t a[N], const uint32_t b[N]) {
    Chain k;
    r[0] = a[0];
    k.add(r[0], b[0]);
    PL_UNROLL for (int i = 1; i < N; i++) r[i] = k.addc(a[i], b[i]);
    return k.addc(0, 0);
  }
  // r = a - p if a >= p (a < 2p assumed), in place.
  PL_HD static void reduce_once(uint32_t a[N]) {
    uint32_t t[N];
    const uint32_t lt = sub_mod<1>(t, a);
    PL_UNROLL for (int i = 0; i < N; i++) a[i] = lt ? a[i] : t[i];
  }

  // Values in [0, 2p), the NTT's passes' lazy form (ntt.cuh); 2p <
  // 2^(32N) for both moduli. mod2(i) is limb i of 2p.
  PL_HD static uint32_t mod2(int i) { return (P::mod(i) << 1) | (i ? P::mod(i - 1) >> 31 : 0); }
  // a + b mod p in [0, 2p), for a, b < 2p. The sum (< 4p) can pass
  // 2^(32N): it is below 2p when taking 2p away from the N + 1 limbs
  // (the carry as the top one) borrows.
  PL_HD static Field add_2p(const Field& a, const Field& b) {
    Field s, t;
    uint32_t c = add_limbs(s.v, a.v, b.v);
    Chain k;
    PL_UNROLL for (int i = 0; i < N; i++) {
      t.v[i] = s.v[i];
      if (i == 0) k.sub(t.v[i], mod2(0));
      else k.subc(t.v[i], mod2(i));
    }
    k.subc(c, 0);  // 0xffffffff iff a + b < 2p, else 0 or 1
    return (int32_t)c < 0 ? s : t;
  }
  // a - b mod p in [0, 2p), for a, b < 2p.
  PL_HD static Field sub_2p(const Field& a, const Field& b) {
    Field r;
    add_mod_masked<2>(r.v, sub_limbs(r.v, a.v, b.v));
    return r;
  }

  // x 2^-k mod p in [0, 2p), for x < 2p and 1 <= k <= 31: (x + m p) / 2^k
  // with m = -x p^-1 mod 2^k, which makes the sum a multiple of 2^k. It
  // is below (2p + 2^k p) / 2^k <= 2p. N products instead of a
  // multiplication's ~2N^2: the inverse NTT's 1/n for n = 2^k (ntt.cuh's
  // ntt_out).
  PL_HD static Field div_pow2(const Field& x, int k) {
    const uint32_t m = (x.v[0] * P::INV) & ((1u << k) - 1);
    uint32_t t[N + 1];
    uint64_t c = 0;
    PL_UNROLL for (int j = 0; j < N; j++) {
      c += (uint64_t)m * P::mod(j) + x.v[j];
      t[j] = (uint32_t)c;
      c >>= 32;
    }
    t[N] = (uint32_t)c;
    Field r;
    PL_UNROLL for (int j = 0; j < N; j++) r.v[j] = (t[j] >> k) | (t[j + 1] << (32 - k));
    return r;
  }
  // The value in [0, p) of a < 2p.
  PL_HD Field reduced() const {
    Field r = *this;
    reduce_once(r.v);
    return r;
  }

  PL_HD friend Field operator+(const Field& a, const Field& b) {
    Field r;
    // moduli leave spare top bits: a + b < 2p < 2^(32N), no carry out.
    add_limbs(r.v, a.v, b.v);
    reduce_once(r.v);
    return r;
  }
  PL_HD friend Field operator-(const Field& a, const Field& b) {
    Field r;
    add_mod_masked<1>(r.v, sub_limbs(r.v, a.v, b.v));
    return r;
  }
  PL_HD Field neg() const {
    if (is_zero()) return *this;
    Field r, p;
    PL_UNROLL for (int i = 0; i < N; i++) p.v[i] = P::mod(i);
    sub_limbs(r.v, p.v, v);  // v < p: no borrow
    return r;
  }

  PL_HD Field dbl() const { return *this + *this; }

  // The end of a round of mont_mul and the functions built like it: the
  // running sum E + 2^32 O moved down one limb (E's limb 0 is zero by
  // then). E's limb 1, which has no place in O, becomes pend, added at the
  // start of the next round; the new E is O, the new O is E's limbs 2..
  // and top, the round's carry limb.
  PL_HD static void shift_down(uint32_t e[N], uint32_t o[N], uint32_t top, uint32_t& pend) {
    pend = e[1];
    PL_UNROLL for (int j = 0; j < N; j++) {
      const uint32_t next_o = j < N - 2 ? e[j + 2] : (j == N - 2 ? top : 0);
      e[j] = o[j];
      o[j] = next_o;
    }
  }
  // The start of a round of mont_mul and mul_wide: pend and the row of
  // products a_j*b_i added to the running sum E + 2^32 O (even j into E,
  // odd j into O, one carry chain each). Returns E's carry limb.
  PL_HD static uint32_t add_row(uint32_t e[N], uint32_t o[N], uint32_t pend, const Field& a,
                              uint32_t bi) {
    Chain k;
    k.add(e[0], pend);
    PL_UNROLL for (int j = 1; j < N; j += 2) k.madc(o[j - 1], o[j], a.v[j], bi);
    Chain ke;
    ke.mad(e[0], e[1], a.v[0], bi);
    PL_UNROLL for (int j = 2; j < N; j += 2) ke.madc(e[j], e[j + 1], a.v[j], bi);
    return ke.addc(0, 0);
  }
  // A reduction round of mont_sqr and redc: pend added, then m p (m =
  // E_0 * -1/p mod 2^32, which zeroes E's limb 0) added to E + 2^32 O.
  // Returns top plus E's carry limb.
  PL_HD static uint32_t reduce_row(uint32_t e[N], uint32_t o[N], uint32_t pend, uint32_t top) {
    Chain ko;
    ko.add(e[0], pend);
    const uint32_t m = e[0] * P::INV;
    PL_UNROLL for (int j = 1; j < N; j += 2) ko.madc(o[j - 1], o[j], P::mod(j), m);
    Chain kp;
    kp.mad(e[0], e[1], P::mod(0), m);
    PL_UNROLL for (int j = 2; j < N; j += 2) kp.madc(e[j], e[j + 1], P::mod(j), m);
    return kp.addc(top, 0);
  }
  // r += pend + 2^32 O: with r = E after the last round, the running sum
  // as one value.
  PL_HD static void add_pending(uint32_t r[N], const uint32_t o[N], uint32_t pend) {
    Chain k;
    k.add(r[0], pend);
    PL_UNROLL for (int j = 1; j < N; j++) r[j] = k.addc(r[j], o[j - 1]);
  }

  // A round's Montgomery factor, m = E_0 * (-1/p) mod 2^32. Fr's -1/r is
  // -1, and ptxas, seeing m = -E_0, computes each of m*r's products as an
  // IMAD.X and an IMAD.HI.U32.X (two slots of the multiply pipe) instead
  // of one IMAD.WIDE.U32.X; with the constant read from constant memory it
  // cannot see that and keeps them whole: 2^32 Fr multiplications 75.4 ->
  // 69.4 ms, NTT 2^24 4.88 -> 4.50 ms on the H200
  // (docs/design/field-arithmetic.md).
  PL_HD static uint32_t mont_m(uint32_t e0) {
#if defined(__CUDA_ARCH__)
    if (P::INV == 0xffffffffu) return e0 * pl_fr_inv;
#endif
    return e0 * P::INV;
  }

  // Montgomery multiplication (CIOS) with the running sum held as two
  // arrays, T = E + 2^32 O: the products a_j*b_i of even j land on limbs
  // (j, j+1) of E and those of odd j on limbs (j-1, j) of O, so each array
  // takes a row of products as one carry chain of (lo, hi) pairs, one
  // IMAD.WIDE.U32.X each on sm_90. The round's shift by one limb is a
  // renaming: the new E is O, the new O is E's limbs 2.. plus E's carry
  // limb, and E's limb 1, which has no place in O, is added at the start
  // of the next round (its carry goes into O's first pair). T < 2p after
  // every round and p < 2^(32N-1), so O's chains never carry out.
  //
  // With p's limbs 0 and 1 equal to 1 and 2^32 - 1 (Fr), m = -E_0 mod 2^32
  // and the round's first two products need no multiplication: m*1 = m,
  // and m (2^32 - 1) = (m - 1) 2^32 + E_0 for m != 0 (0 for m = 0). Two of
  // the round's 17 products (8 of a*b_i, 8 of m*p, m) become additions.
  PL_HD static Field mont_mul(const Field& a, const Field& b) {
    Field r = mont_mul_2p(a, b);
    reduce_once(r.v);
    return r;
  }
  // mont_mul without its last conditional subtraction: a b / R mod p in
  // [0, 2p), for a < p and any b < 2^(32N). The bound of every round
  // (T < a + p < 2p) takes a < p only; b enters a limb a round. At the end
  // T < a b / R + p, under 2p when b < 2p and p < R / 2 (Fr: a b / R <
  // 0.91 r; the NTT's lazy passes, ntt.cuh).
  PL_HD static Field mont_mul_2p(const Field& a, const Field& b) {
    uint32_t e[N], o[N], pend = 0;
    PL_UNROLL for (int i = 0; i < N; i++) e[i] = o[i] = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      uint32_t top = add_row(e, o, pend, a, b.v[i]);
      Chain kp, ko;
      const uint32_t m = mont_m(e[0]);
      if (LOW_LIMBS_1_FFFFFFFF) {
        const uint32_t e0 = e[0];
#if PL_FR_HI1_BORROW
        // the high limb m - (m != 0): 0 - E_0 borrows exactly when
        // E_0 = -m is not 0
        Chain kb;
        uint32_t zero = 0;
        kb.sub(zero, e0);
        const uint32_t hi1 = kb.subc_keep(m, 0);
        kp.add(e[0], m);
#else
        const uint32_t hi1 = m - (m != 0);  // high limb of m (2^32 - 1); its low limb is e0
        kp.add(e[0], m);
#endif
        e[1] = kp.addc(e[1], 0);
        PL_UNROLL for (int j = 2; j < N; j += 2) kp.madc(e[j], e[j + 1], P::mod(j), m);
        top = kp.addc(top, 0);
        ko.add(o[0], e0);
        o[1] = ko.addc(o[1], hi1);
        PL_UNROLL for (int j = 3; j < N; j += 2) ko.madc(o[j - 1], o[j], P::mod(j), m);
      } else {
        kp.mad(e[0], e[1], P::mod(0), m);
        PL_UNROLL for (int j = 2; j < N; j += 2) kp.madc(e[j], e[j + 1], P::mod(j), m);
        top = kp.addc(top, 0);
        ko.mad(o[0], o[1], P::mod(1), m);
        PL_UNROLL for (int j = 3; j < N; j += 2) ko.madc(o[j - 1], o[j], P::mod(j), m);
      }
      shift_down(e, o, top, pend);
    }
    Field r;
    PL_UNROLL for (int j = 0; j < N; j++) r.v[j] = e[j];
    add_pending(r.v, o, pend);
    return r;
  }

  // CIOS Montgomery multiplication, plain (64-bit accumulators): the
  // reference the device self-test checks mont_mul against.
  PL_HD static Field mont_mul_ref(const Field& a, const Field& b) {
    uint32_t t[N + 2];
    PL_UNROLL for (int i = 0; i < N + 2; i++) t[i] = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      uint64_t c = 0;
      PL_UNROLL for (int j = 0; j < N; j++) {
        c += (uint64_t)a.v[j] * b.v[i] + t[j];
        t[j] = (uint32_t)c;
        c >>= 32;
      }
      c += t[N];
      t[N] = (uint32_t)c;
      t[N + 1] = (uint32_t)(c >> 32);
      const uint32_t m = t[0] * P::INV;
      c = ((uint64_t)m * P::mod(0) + t[0]) >> 32;
      PL_UNROLL for (int j = 1; j < N; j++) {
        c += (uint64_t)m * P::mod(j) + t[j];
        t[j - 1] = (uint32_t)c;
        c >>= 32;
      }
      c += t[N];
      t[N - 1] = (uint32_t)c;
      t[N] = t[N + 1] + (uint32_t)(c >> 32);
    }
    Field r;
    PL_UNROLL for (int i = 0; i < N; i++) r.v[i] = t[i];
    reduce_once(r.v);
    return r;
  }

  // Montgomery squaring, a^2 / R mod p for a < p: mont_mul's rounds and
  // layout (T = E + 2^32 O and the pending limb) with each cross product
  // a_i*a_j (i < j) computed once, N(N+1)/2 + N^2 products instead of
  // 2N^2 (Fp: 222 instead of 288). Round i adds row i of the square,
  //   a_i (a_i 2^(32i) + 2 U_i) 2^(32i),  U_i = sum_{j>i} a_j 2^(32j),
  // which lies on the round's limbs i..N-1: a_i times v_j at limb j, with
  // v_i = a_i and v_j for j > i the limbs of 2 U_i, a_(i+1) << 1 and then
  // (a_j << 1) | (a_(j-1) >> 31) (2 U_i has no limb N: a < 2^(32N-1)).
  // Even j go to E's pairs (j, j+1), odd j to O's (j-1, j), as in
  // mont_mul; so do m*p's. The pending limb is added to e[0] at the start
  // of the chain of O's m*p pairs, which takes its carry (the rows of
  // rounds i >= 1 do not touch e[0], so m sees the whole limb).
  // Bounds: rows 0..i sum to a^2 - U_i^2 = L (2a - L) < 2aL, L = a mod
  // 2^(32(i+1)), so after round i T < 2a + p < 3p, and before its shift
  // the sum (2^32 T >= 2^32 O) leaves O < 3p < 2^(32N) (SQR_DEDICATED:
  // true for BLS12-381's Fp and BN254's fields; false for BLS12-381's
  // Fr, 3r > 2^256): O's chains never
  // carry out; E's go to top (at most 2). At the end T = (a^2 + M p) / R <
  // p (p / R) + p < 2p (M < R): one conditional subtraction.
  PL_HD static Field mont_sqr(const Field& a) {
    static_assert(SQR_DEDICATED, "mont_sqr's bound needs 3p < 2^(32N)");
    uint32_t d[N];  // d[j], j >= 1: limb j of 2a
    d[0] = 0;
    PL_UNROLL for (int j = 1; j < N; j++) d[j] = (a.v[j] << 1) | (a.v[j - 1] >> 31);
    uint32_t e[N], o[N], pend = 0;
    PL_UNROLL for (int i = 0; i < N; i++) e[i] = o[i] = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      const uint32_t ai = a.v[i];
      Chain kro;  // the row's odd j >= i
      const int jo = i | 1;
      kro.mad(o[jo - 1], o[jo], sqr_v(a, d, i, jo), ai);
      PL_UNROLL for (int j = jo + 2; j < N; j += 2) kro.madc(o[j - 1], o[j], sqr_v(a, d, i, j), ai);
      uint32_t top = 0;
      const int je = (i + 1) & ~1;  // the row's even j >= i
      if (je < N) {
        Chain kre;
        kre.mad(e[je], e[je + 1], sqr_v(a, d, i, je), ai);
        PL_UNROLL for (int j = je + 2; j < N; j += 2) kre.madc(e[j], e[j + 1], sqr_v(a, d, i, j), ai);
        top = kre.addc(0, 0);
      }
      top = reduce_row(e, o, pend, top);
      shift_down(e, o, top, pend);
    }
    Field r;
    PL_UNROLL for (int j = 0; j < N; j++) r.v[j] = e[j];
    add_pending(r.v, o, pend);
    reduce_once(r.v);
    return r;
  }
  // mont_sqr's multiplicand at limb j of row i (j >= i).
  PL_HD static uint32_t sqr_v(const Field& a, const uint32_t d[N], int i, int j) {
    return j == i ? a.v[i] : (j == i + 1 ? a.v[j] << 1 : d[j]);
  }

  // A 2N-limb integer: an unreduced product (Fp2::mul_lazy).
  struct Wide {
    uint32_t v[2 * N];
  };

  // a*b as a 2N-limb integer, for any a, b < 2^(32N): mont_mul's rows
  // without the reduction. After round i the limb at the bottom of E is
  // final (later rows start higher) and leaves as limb i; the rest shifts
  // down as in mont_mul. The state before round i is floor(a (b mod
  // 2^(32i)) / 2^(32i)) < a, so before the shift the sum is below
  // a + a (2^32 - 1) = 2^32 a and O < a: O's chains never carry out. The
  // top half is what is left, E + 2^32 O + pend < a.
  PL_HD static Wide mul_wide(const Field& a, const Field& b) {
    Wide t;
    uint32_t e[N], o[N], pend = 0;
    PL_UNROLL for (int i = 0; i < N; i++) e[i] = o[i] = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      const uint32_t top = add_row(e, o, pend, a, b.v[i]);
      t.v[i] = e[0];
      shift_down(e, o, top, pend);
    }
    PL_UNROLL for (int j = 0; j < N; j++) t.v[N + j] = e[j];
    add_pending(t.v + N, o, pend);
    return t;
  }

  // Montgomery reduction, t / R mod p for a 2N-limb t < p R. With t =
  // t_lo + R t_hi: mont_mul's reduction rounds on E = t_lo, O = 0 give
  // (t_lo + M p) / R < 1 + p (M < R), i.e. <= p, and t_hi < p, so the sum
  // is < 2p < 2^(32N): one conditional subtraction. In the rounds T <
  // 2^(32N) (T_0 = t_lo; T_(i+1) = (T_i + m p) / 2^32 < 2^(32(N-1)) + p),
  // so the sum before each shift is < 2^(32N) + 2^32 p < 2^(32(N+1)) and
  // O < 2^(32N): O's chains never carry out.
  PL_HD static Field redc(const Wide& t) {
    uint32_t e[N], o[N], pend = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      e[i] = t.v[i];
      o[i] = 0;
    }
    PL_UNROLL for (int i = 0; i < N; i++) {
      const uint32_t top = reduce_row(e, o, pend, 0);
      shift_down(e, o, top, pend);
    }
    Field r;
    Chain kh;  // E + t_hi, then + 2^32 O + pend (partial sums < 2p)
    r.v[0] = e[0];
    kh.add(r.v[0], t.v[N]);
    PL_UNROLL for (int j = 1; j < N; j++) r.v[j] = kh.addc(e[j], t.v[N + j]);
    add_pending(r.v, o, pend);
    reduce_once(r.v);
    return r;
  }

  // a - b + K for a, b < p^2, with K = p 2^BITS, a multiple of p above
  // p^2 (p < 2^BITS): 0 < a - b + K < K + p^2 < p 2^(BITS+1) <= p R (BITS
  // <= 32N - 1: BLS12-381's Fp has 381 bits of 384, BN254's 254 of 256),
  // what redc takes. Computed mod 2^(64N) (the borrow of a - b and the
  // carry of + K cancel); K's limbs below N-1 are zero, limb N-1 + j is
  // p's limbs j and j-1 shifted by K_SHIFT = BITS - 32(N-1).
  static constexpr int K_SHIFT = BITS - 32 * (N - 1);
  PL_HD static Wide sub_wide_k(Wide a, const Wide& b) {
    static_assert(K_SHIFT >= 1 && K_SHIFT <= 31, "sub_wide_k's K = p 2^BITS needs BITS <= 32N - 1");
    Chain ks, kk;
    ks.sub(a.v[0], b.v[0]);
    PL_UNROLL for (int j = 1; j < 2 * N; j++) ks.subc(a.v[j], b.v[j]);
    kk.add(a.v[N - 1], P::mod(0) << K_SHIFT);
    PL_UNROLL for (int j = N; j < 2 * N; j++) {
      const uint32_t kj = (j - N + 1 < N ? P::mod(j - N + 1) << K_SHIFT : 0) |
                          (P::mod(j - N) >> (32 - K_SHIFT));
      a.v[j] = kk.addc(a.v[j], kj);
    }
    return a;
  }

  // a b - c d mod p for a, b, c, d < p with one Montgomery reduction: the
  // two products wide (sub_wide_k's bound), then redc. 3N^2 products
  // instead of two multiplications' 4N^2 (Fp: 432 instead of 576). The
  // point formulas' y = r (q - x3) - y1 ppp (PL_Y3_LAZY).
  PL_HD static Field mul_sub_mul(const Field& a, const Field& b, const Field& c, const Field& d) {
#if defined(PL_MUL_CALL) && defined(__CUDA_ARCH__)
    return redc_call(sub_wide_k(mul_wide_call(a, b), mul_wide_call(c, d)));
#else
    return redc(sub_wide_k(mul_wide(a, b), mul_wide(c, d)));
#endif
  }

  // a + b as integers, not reduced (a + b < 2^(32N)).
  PL_HD static Field add_raw(const Field& a, const Field& b) {
    Field r = a;
    Chain k;
    k.add(r.v[0], b.v[0]);
    PL_UNROLL for (int j = 1; j < N; j++) r.v[j] = k.addc(r.v[j], b.v[j]);
    return r;
  }

#if defined(PL_MUL_CALL) && defined(__CUDA_ARCH__)
  // A translation unit that defines PL_MUL_CALL gets its multiplications
  // as calls to one copy instead of inlined (see msm_impl.cuh). The operands
  // go by value: by reference they went through the stack (an 816-byte
  // frame, 24 loads per call), and G1 MSM 2^24 took 158 ms instead of 144.
  __device__ __noinline__ static Field mont_mul_call(Field a, Field b) { return mont_mul(a, b); }
  PL_HD friend Field operator*(const Field& a, const Field& b) { return mont_mul_call(a, b); }
#else
  PL_HD friend Field operator*(const Field& a, const Field& b) { return mont_mul(a, b); }
#endif
#if defined(PL_MUL_CALL) && defined(__CUDA_ARCH__)
  // Fp2::mul_lazy's pieces as calls (see there).
  __device__ __noinline__ static Wide mul_wide_call(Field a, Field b) { return mul_wide(a, b); }
  __device__ __noinline__ static Field redc_call(Wide t) { return redc(t); }
#endif
  // Squarings: with PL_SQR_DEDICATED (the default, see the top of the
  // file) mont_sqr where the modulus allows it (Fp), else mont_mul(x, x);
  // inlined, or as calls with PL_SQR_CALL (an A/B build: slower for G1).
#if defined(PL_SQR_CALL) && defined(PL_MUL_CALL) && defined(__CUDA_ARCH__)
#if defined(PL_SQR_DEDICATED)
  __device__ __noinline__ static Field mont_sqr_call(Field a) { return mont_sqr(a); }
  PL_HD Field sqr() const {
    if constexpr (SQR_DEDICATED) return mont_sqr_call(*this);
    else return mont_mul_call(*this, *this);
  }
#else
  PL_HD Field sqr() const { return mont_mul_call(*this, *this); }
#endif
#elif defined(PL_SQR_DEDICATED)
  PL_HD Field sqr() const {
    if constexpr (SQR_DEDICATED) return mont_sqr(*this);
    else return mont_mul(*this, *this);
  }
#else
  PL_HD Field sqr() const { return mont_mul(*this, *this); }
#endif
  PL_HD Field to_mont() const { return mont_mul(*this, r2()); }
  PL_HD Field from_mont() const { return mont_mul(*this, raw_one()); }
};

// Fp2 = Fp[u] / (u^2 + 1), gnark-crypto's E2{A0, A1}: BLS12-381's and
// BN254's quadratic extension alike. Fp's parameters say its non-residue
// (FP2_NONRESIDUE, u^2), which the formulas below take to be -1.
template <class Fp>
struct Fp2T {
  static_assert(Fp::Params::FP2_NONRESIDUE == -1, "Fp2T's formulas take u^2 = -1");
  using Fp2 = Fp2T;
  static constexpr int DEGREE = 2;
  Fp c0, c1;
  PL_HD static Fp2 zero() { Fp2 r; r.c0 = Fp::zero(); r.c1 = Fp::zero(); return r; }
  PL_HD static Fp2 one() { Fp2 r; r.c0 = Fp::one(); r.c1 = Fp::zero(); return r; }
  PL_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  PL_HD bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  PL_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { Fp2 r; r.c0 = a.c0 + b.c0; r.c1 = a.c1 + b.c1; return r; }
  PL_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { Fp2 r; r.c0 = a.c0 - b.c0; r.c1 = a.c1 - b.c1; return r; }
  PL_HD Fp2 neg() const { Fp2 r; r.c0 = c0.neg(); r.c1 = c1.neg(); return r; }
  PL_HD Fp2 dbl() const { return *this + *this; }
  // a b - c d: the point formulas call it for Fp's one reduction
  // (Field::mul_sub_mul); Fp2's products are lazy already.
  PL_HD static Fp2 mul_sub_mul(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) { return a * b - c * d; }
  // Karatsuba: three Fp multiplications.
  PL_HD static Fp2 mul(const Fp2& a, const Fp2& b) {
    Fp t0 = a.c0 * b.c0;
    Fp t1 = a.c1 * b.c1;
    Fp t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    Fp2 r;
    r.c0 = t0 - t1;
    r.c1 = t2 - t0 - t1;
    return r;
  }
  PL_HD static Fp2 square(const Fp2& a) {
    Fp2 r;
    Fp t = a.c0 * a.c1;
    r.c0 = (a.c0 + a.c1) * (a.c0 - a.c1);
    r.c1 = t + t;
    return r;
  }
  // Karatsuba with lazy reduction: the three products kept unreduced
  // (2N limbs), combined as integers, then two Montgomery reductions
  // instead of three full multiplications (5N^2 products instead of 6N^2).
  // Bounds, inputs < p (p < 2^(32N-1), Field's BITS):
  //   s_a = a0 + a1, s_b = b0 + b1 < 2p < 2^(32N), not reduced;
  //   p0 = a0 b0, p1 = a1 b1 < p^2; p2 = s_a s_b < 4p^2 < 2^(64N);
  //   c1 = p2 - p0 - p1 = a0 b1 + a1 b0 < 2p^2 < p R;
  //   c0 = p0 - p1 + K, K = p 2^BITS, a multiple of p and > p1, so
  //     0 < c0 < K + p^2 < p 2^(BITS+1) <= p R.
  // c0 is Fp::sub_wide_k's (the bound there). redc takes t < p R.
  // With PL_MUL_CALL on the device, the products and reductions are calls
  // (one copy each), unless PL_FP2_CALL makes the whole multiplication one.
  PL_HD static Fp2 mul_lazy(const Fp2& a, const Fp2& b) {
    constexpr int N = Fp::N;
    const Fp sa = Fp::add_raw(a.c0, a.c1), sb = Fp::add_raw(b.c0, b.c1);
#if defined(PL_MUL_CALL) && defined(__CUDA_ARCH__) && !defined(PL_FP2_CALL)
    typename Fp::Wide p0 = Fp::mul_wide_call(a.c0, b.c0);
    const typename Fp::Wide p1 = Fp::mul_wide_call(a.c1, b.c1);
    typename Fp::Wide p2 = Fp::mul_wide_call(sa, sb);
#else
    typename Fp::Wide p0 = Fp::mul_wide(a.c0, b.c0);
    const typename Fp::Wide p1 = Fp::mul_wide(a.c1, b.c1);
    typename Fp::Wide p2 = Fp::mul_wide(sa, sb);
#endif
    Chain k1, k2;  // p2 -= p0; p2 -= p1
    k1.sub(p2.v[0], p0.v[0]);
    PL_UNROLL for (int j = 1; j < 2 * N; j++) k1.subc(p2.v[j], p0.v[j]);
    k2.sub(p2.v[0], p1.v[0]);
    PL_UNROLL for (int j = 1; j < 2 * N; j++) k2.subc(p2.v[j], p1.v[j]);
    p0 = Fp::sub_wide_k(p0, p1);  // p0 - p1 + K
    Fp2 r;
#if defined(PL_MUL_CALL) && defined(__CUDA_ARCH__) && !defined(PL_FP2_CALL)
    r.c0 = Fp::redc_call(p0);
    r.c1 = Fp::redc_call(p2);
#else
    r.c0 = Fp::redc(p0);
    r.c1 = Fp::redc(p2);
#endif
    return r;
  }
  // Operators. PL_FP2_CALL (with PL_MUL_CALL) makes an Fp2 multiplication
  // or squaring one call whose Fp pieces are inlined, instead of calls of
  // the Fp ones; PL_FP2_LAZY multiplies by mul_lazy (one call of it with
  // PL_FP2_CALL). Both are the default (top of the file). Same results.
#if defined(PL_FP2_CALL) && defined(PL_MUL_CALL) && defined(__CUDA_ARCH__)
#if defined(PL_FP2_LAZY)
  __device__ __noinline__ static Fp2 mul_lazy_call(Fp2 a, Fp2 b) { return mul_lazy(a, b); }
  PL_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) { return mul_lazy_call(a, b); }
#else
  __device__ __noinline__ static Fp2 mul_call(Fp2 a, Fp2 b) {
    Fp t0 = Fp::mont_mul(a.c0, b.c0);
    Fp t1 = Fp::mont_mul(a.c1, b.c1);
    Fp t2 = Fp::mont_mul(a.c0 + a.c1, b.c0 + b.c1);
    Fp2 r;
    r.c0 = t0 - t1;
    r.c1 = t2 - t0 - t1;
    return r;
  }
  PL_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) { return mul_call(a, b); }
#endif
  __device__ __noinline__ static Fp2 square_call(Fp2 a) {
    Fp2 r;
    Fp t = Fp::mont_mul(a.c0, a.c1);
    r.c0 = Fp::mont_mul(a.c0 + a.c1, a.c0 - a.c1);
    r.c1 = t + t;
    return r;
  }
  PL_HD Fp2 sqr() const { return square_call(*this); }
#else
#if defined(PL_FP2_LAZY)
  PL_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) { return mul_lazy(a, b); }
#else
  PL_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) { return mul(a, b); }
#endif
  PL_HD Fp2 sqr() const { return square(*this); }
#endif
};

}  // namespace pl
