// field.cuh: Montgomery arithmetic over BLS12-381's Fr (8x32-bit limbs,
// R = 2^256) and Fp (12x32-bit limbs, R = 2^384). The limb layout equals
// gnark-crypto's fr.Element / fp.Element in memory (little-endian), so
// elements move between Go and the device without conversion.
//
// Every function is __host__ __device__: the same code is compiled by g++
// for the host-side tests (cuda/internal/hostcheck) and by nvcc.
#pragma once
#include <stdint.h>

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

#if defined(__CUDA_ARCH__) && !defined(PL_PORTABLE_MUL)
#define PL_PTX 1
#endif

namespace pl {

struct FrParams {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xffffffffu;
  PL_HD static uint32_t mod(int i) {
    const uint32_t m[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                           0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    return m[i];
  }
  PL_HD static uint32_t one(int i) {
    const uint32_t m[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                           0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
    return m[i];
  }
  PL_HD static uint32_t r2(int i) {
    const uint32_t m[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                           0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
    return m[i];
  }
};

struct FpParams {
  static constexpr int N = 12;
  static constexpr uint32_t INV = 0xfffcfffdu;
  PL_HD static uint32_t mod(int i) {
    const uint32_t m[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                            0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                            0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return m[i];
  }
  PL_HD static uint32_t one(int i) {
    const uint32_t m[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                            0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                            0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
    return m[i];
  }
  PL_HD static uint32_t r2(int i) {
    const uint32_t m[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6,
                            0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9,
                            0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
    return m[i];
  }
};

#if defined(PL_PTX)
// Single PTX instructions. The carry flag lives between consecutive asm
// statements; nvcc keeps volatile asm in order and inserts nothing that
// touches CC between them (the same pattern ICICLE and others rely on).
__device__ __forceinline__ uint32_t ptx_add_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t ptx_addc_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t ptx_addc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t ptx_mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t ptx_madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t ptx_mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ uint32_t ptx_madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
#endif

template <class P>
struct Field {
  static constexpr int N = P::N;
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

  // r = a - p if a >= p (a < 2p assumed), in place.
  PL_HD static void reduce_once(uint32_t a[N]) {
    uint32_t t[N];
    uint64_t borrow = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)a[i] - P::mod(i) - borrow;
      t[i] = (uint32_t)d;
      borrow = (d >> 32) & 1;
    }
    if (!borrow) {
      PL_UNROLL for (int i = 0; i < N; i++) a[i] = t[i];
    }
  }

  PL_HD friend Field operator+(const Field& a, const Field& b) {
    Field r;
    uint64_t c = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      c += (uint64_t)a.v[i] + b.v[i];
      r.v[i] = (uint32_t)c;
      c >>= 32;
    }
    // moduli leave spare top bits: a + b < 2p < 2^(32N), no carry out.
    reduce_once(r.v);
    return r;
  }

  PL_HD friend Field operator-(const Field& a, const Field& b) {
    Field r;
    uint64_t borrow = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)a.v[i] - b.v[i] - borrow;
      r.v[i] = (uint32_t)d;
      borrow = (d >> 32) & 1;
    }
    if (borrow) {
      uint64_t c = 0;
      PL_UNROLL for (int i = 0; i < N; i++) {
        c += (uint64_t)r.v[i] + P::mod(i);
        r.v[i] = (uint32_t)c;
        c >>= 32;
      }
    }
    return r;
  }

  PL_HD Field neg() const {
    if (is_zero()) return *this;
    Field r;
    uint64_t borrow = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      uint64_t d = (uint64_t)P::mod(i) - v[i] - borrow;
      r.v[i] = (uint32_t)d;
      borrow = (d >> 32) & 1;
    }
    return r;
  }

  PL_HD Field dbl() const { return *this + *this; }

#if defined(PL_PTX)
  // CIOS Montgomery multiplication with madc chains.
  __device__ __forceinline__ static Field mont_mul(const Field& a, const Field& b) {
    uint32_t t[N + 2];
    PL_UNROLL for (int i = 0; i < N + 2; i++) t[i] = 0;
    PL_UNROLL for (int i = 0; i < N; i++) {
      const uint32_t bi = b.v[i];
      // t += a * bi: low halves into t[0..N-1], carry into t[N], t[N+1]
      t[0] = ptx_mad_lo_cc(a.v[0], bi, t[0]);
      PL_UNROLL for (int j = 1; j < N; j++) t[j] = ptx_madc_lo_cc(a.v[j], bi, t[j]);
      t[N] = ptx_addc_cc(t[N], 0);
      t[N + 1] = ptx_addc(t[N + 1], 0);
      t[1] = ptx_mad_hi_cc(a.v[0], bi, t[1]);
      PL_UNROLL for (int j = 1; j < N; j++) t[j + 1] = ptx_madc_hi_cc(a.v[j], bi, t[j + 1]);
      t[N + 1] = ptx_addc(t[N + 1], 0);
      // m = t0 * inv; t += m * p; shift down one limb
      const uint32_t m = t[0] * P::INV;
      t[0] = ptx_mad_lo_cc(m, P::mod(0), t[0]);
      PL_UNROLL for (int j = 1; j < N; j++) t[j] = ptx_madc_lo_cc(m, P::mod(j), t[j]);
      t[N] = ptx_addc_cc(t[N], 0);
      t[N + 1] = ptx_addc(t[N + 1], 0);
      t[1] = ptx_mad_hi_cc(m, P::mod(0), t[1]);
      PL_UNROLL for (int j = 1; j < N; j++) t[j + 1] = ptx_madc_hi_cc(m, P::mod(j), t[j + 1]);
      t[N + 1] = ptx_addc(t[N + 1], 0);
      PL_UNROLL for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
      t[N + 1] = 0;
    }
    Field r;
    PL_UNROLL for (int i = 0; i < N; i++) r.v[i] = t[i];
    reduce_once(r.v);
    return r;
  }
#else
  PL_HD static Field mont_mul(const Field& a, const Field& b) { return mont_mul_portable(a, b); }
#endif

  // CIOS Montgomery multiplication, portable (64-bit accumulators). The
  // device self-test checks the PTX version against it.
  PL_HD static Field mont_mul_portable(const Field& a, const Field& b) {
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

  PL_HD friend Field operator*(const Field& a, const Field& b) { return mont_mul(a, b); }
  PL_HD Field sqr() const { return mont_mul(*this, *this); }
  PL_HD Field to_mont() const { return mont_mul(*this, r2()); }
  PL_HD Field from_mont() const { return mont_mul(*this, raw_one()); }
};

typedef Field<FrParams> Fr;
typedef Field<FpParams> Fp;

// Fp2 = Fp[u] / (u^2 + 1), gnark-crypto's E2{A0, A1}.
struct Fp2 {
  Fp c0, c1;
  PL_HD static Fp2 zero() { Fp2 r; r.c0 = Fp::zero(); r.c1 = Fp::zero(); return r; }
  PL_HD static Fp2 one() { Fp2 r; r.c0 = Fp::one(); r.c1 = Fp::zero(); return r; }
  PL_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  PL_HD bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  PL_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { Fp2 r; r.c0 = a.c0 + b.c0; r.c1 = a.c1 + b.c1; return r; }
  PL_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { Fp2 r; r.c0 = a.c0 - b.c0; r.c1 = a.c1 - b.c1; return r; }
  PL_HD Fp2 neg() const { Fp2 r; r.c0 = c0.neg(); r.c1 = c1.neg(); return r; }
  PL_HD Fp2 dbl() const { return *this + *this; }
  PL_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    Fp t0 = a.c0 * b.c0;
    Fp t1 = a.c1 * b.c1;
    Fp t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    Fp2 r;
    r.c0 = t0 - t1;
    r.c1 = t2 - t0 - t1;
    return r;
  }
  PL_HD Fp2 sqr() const {
    Fp2 r;
    Fp t = c0 * c1;
    r.c0 = (c0 + c1) * (c0 - c1);
    r.c1 = t + t;
    return r;
  }
};

}  // namespace pl
