// curves.cuh: the curves the kernels are instantiated for, BLS12-381 and
// BN254: each one's fields (field.cuh's Field and Fp2T over its
// parameters), its curves' b, and what its scalar field's NTTs take.
// Every kernel is a template over these types (the Curve structs below);
// a .cu file instantiates it for each curve and dispatches on api.h's
// pl_curve. The constants are gnark-crypto's (ecc/bls12-381, ecc/bn254),
// limbs little-endian, Montgomery form where it says; the host check
// (cuda/internal/hostcheck) compares every one with gnark-crypto's.
#pragma once
#include "api.h"
#include "field.cuh"

namespace pl {

namespace bls12_381 {

// r = 0x73eda753...00000001, 255 bits.
struct FrParams {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xffffffffu;
  // r - 1 = 2^32 t, t odd: the largest NTT domain is 2^32.
  static constexpr int TWO_ADICITY = 32;
  PL_HD static constexpr uint32_t mod(int i) {
    const uint32_t m[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                           0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    return m[i];
  }
  PL_HD static constexpr uint32_t one(int i) {
    const uint32_t m[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                           0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
    return m[i];
  }
  PL_HD static constexpr uint32_t r2(int i) {
    const uint32_t m[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                           0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
    return m[i];
  }
};

// p = 0x1a0111ea...ffffaaab, 381 bits.
struct FpParams {
  static constexpr int N = 12;
  static constexpr uint32_t INV = 0xfffcfffdu;
  static constexpr int FP2_NONRESIDUE = -1;  // Fp2 = Fp[u] / (u^2 + 1)
  PL_HD static constexpr uint32_t mod(int i) {
    const uint32_t m[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                            0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                            0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return m[i];
  }
  PL_HD static constexpr uint32_t one(int i) {
    const uint32_t m[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                            0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                            0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
    return m[i];
  }
  PL_HD static constexpr uint32_t r2(int i) {
    const uint32_t m[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6,
                            0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9,
                            0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
    return m[i];
  }
};

typedef Field<FrParams> Fr;
typedef Field<FpParams> Fp;
typedef Fp2T<Fp> Fp2;

struct Curve {
  static constexpr int ID = PL_BLS12_381;
  typedef bls12_381::Fr Fr;
  typedef bls12_381::Fp Fp;
  typedef bls12_381::Fp2 Fp2;
  // G1: y^2 = x^3 + 4; G2 (M-twist): y^2 = x^3 + 4 (1 + u). Montgomery form.
  PL_HD static Fp b1() {
    const uint32_t m[12] = {0x000cfff3, 0xaa270000, 0xfc34000a, 0x53cc0032,
                            0x6b0a807f, 0x478fe97a, 0xe6ba24d7, 0xb1d37ebe,
                            0xbf78ab2f, 0x8ec9733b, 0x3d83de7e, 0x09d64551};
    Fp r;
    PL_UNROLL for (int i = 0; i < 12; i++) r.v[i] = m[i];
    return r;
  }
  PL_HD static Fp2 b2() {
    Fp2 r;
    r.c0 = r.c1 = b1();
    return r;
  }
};

}  // namespace bls12_381

namespace bn254 {

// r = 0x30644e72...f0000001, 254 bits.
struct FrParams {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xefffffffu;
  // r - 1 = 2^28 t, t odd: the largest NTT domain is 2^28.
  static constexpr int TWO_ADICITY = 28;
  PL_HD static constexpr uint32_t mod(int i) {
    const uint32_t m[8] = {0xf0000001, 0x43e1f593, 0x79b97091, 0x2833e848,
                           0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72};
    return m[i];
  }
  PL_HD static constexpr uint32_t one(int i) {
    const uint32_t m[8] = {0x4ffffffb, 0xac96341c, 0x9f60cd29, 0x36fc7695,
                           0x7879462e, 0x666ea36f, 0x9a07df2f, 0x0e0a77c1};
    return m[i];
  }
  PL_HD static constexpr uint32_t r2(int i) {
    const uint32_t m[8] = {0xae216da7, 0x1bb8e645, 0xe35c59e3, 0x53fe3ab1,
                           0x53bb8085, 0x8c49833d, 0x7f4e44a5, 0x0216d0b1};
    return m[i];
  }
};

// p = 0x30644e72...d87cfd47, 254 bits.
struct FpParams {
  static constexpr int N = 8;
  static constexpr uint32_t INV = 0xe4866389u;
  static constexpr int FP2_NONRESIDUE = -1;  // Fp2 = Fp[u] / (u^2 + 1)
  PL_HD static constexpr uint32_t mod(int i) {
    const uint32_t m[8] = {0xd87cfd47, 0x3c208c16, 0x6871ca8d, 0x97816a91,
                           0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72};
    return m[i];
  }
  PL_HD static constexpr uint32_t one(int i) {
    const uint32_t m[8] = {0xc58f0d9d, 0xd35d438d, 0xf5c70b3d, 0x0a78eb28,
                           0x7879462c, 0x666ea36f, 0x9a07df2f, 0x0e0a77c1};
    return m[i];
  }
  PL_HD static constexpr uint32_t r2(int i) {
    const uint32_t m[8] = {0x538afa89, 0xf32cfc5b, 0xd44501fb, 0xb5e71911,
                           0x0a417ff6, 0x47ab1eff, 0xcab8351f, 0x06d89f71};
    return m[i];
  }
};

typedef Field<FrParams> Fr;
typedef Field<FpParams> Fp;
typedef Fp2T<Fp> Fp2;

struct Curve {
  static constexpr int ID = PL_BN254;
  typedef bn254::Fr Fr;
  typedef bn254::Fp Fp;
  typedef bn254::Fp2 Fp2;
  // G1: y^2 = x^3 + 3; G2 (D-twist): y^2 = x^3 + 3 / (9 + u). Montgomery form.
  PL_HD static Fp b1() {
    const uint32_t m[8] = {0x50ad28d7, 0x7a17caa9, 0xe15521b9, 0x1f6ac17a,
                           0x696bd284, 0x334bea4e, 0xce179d8e, 0x2a1f6744};
    Fp r;
    PL_UNROLL for (int i = 0; i < 8; i++) r.v[i] = m[i];
    return r;
  }
  PL_HD static Fp2 b2() {
    const uint32_t m0[8] = {0x77b802a8, 0x3bf938e3, 0x3633535d, 0x020b1b27,
                            0x49755260, 0x26b7edf0, 0x4384a86d, 0x2514c632};
    const uint32_t m1[8] = {0xd1dcff67, 0x38e7eccc, 0x93ce0d3e, 0x65f0b37d,
                            0x22ac00aa, 0xd749d0dd, 0x4a688d4d, 0x0141b9ce};
    Fp2 r;
    PL_UNROLL for (int i = 0; i < 8; i++) {
      r.c0.v[i] = m0[i];
      r.c1.v[i] = m1[i];
    }
    return r;
  }
};

}  // namespace bn254

// The curve of api.h's id: f(C{}) with C the curve's struct, for a
// generic lambda f; PL_ERR_ARG for an id no curve has. The .cu files'
// entry points dispatch through it.
template <class Fn>
inline int with_curve(int id, Fn f) {
  switch (id) {
    case PL_BLS12_381: return f(bls12_381::Curve{});
    case PL_BN254: return f(bn254::Curve{});
  }
  return PL_ERR_ARG;
}

}  // namespace pl
