//go:build cudahost

// Host emulation of the CUDA kernels: the same __host__ __device__ code
// (field, curve, MSM and NTT pieces) driven by sequential loops in the
// kernels' order, so the CPU tests check the arithmetic and the indexing
// against gnark-crypto without a GPU.
#include <string.h>
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <vector>
#include "emu.h"
#include "fp64.cuh"
#include "ntt.cuh"
#include "vec.cuh"

using namespace pl;
using namespace pl::emu;

// Go memory holds elements as 64-bit limbs, only 8-byte aligned; the
// field types are 16-byte aligned (field.cuh): in and out copy them.
template <class T>
static T in(const uint64_t* p) {
  T x;
  memcpy((void*)&x, p, sizeof(T));
  return x;
}
template <class T>
static void out(uint64_t* o, const T& x) {
  memcpy(o, (const void*)&x, sizeof(T));
}

// f(C{}) for api.h's curve id (with_curve, curves.cuh), for the void
// functions below; an unknown id does nothing.
template <class Fn>
static void on(int curve, Fn f) {
  with_curve(curve, [&](auto c) {
    f(c);
    return 0;
  });
}

// f(C{}, F{}) for api.h's curve id and its G1 (F = Fp) or G2 (F = Fp2).
template <class Fn>
static void on_group(int curve, int g2, Fn f) {
  on(curve, [&](auto c) {
    using C = decltype(c);
    if (g2)
      f(c, typename C::Fp2{});
    else
      f(c, typename C::Fp{});
  });
}

extern "C" {

// The field operations of the curve's (api.h id) Fr, Fp and Fp2 on
// elements in gnark-crypto's memory layout.
void hc_fr_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fr = typename decltype(c)::Fr;
    out(o, in<Fr>(a) * in<Fr>(b));
  });
}
void hc_fr_add(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fr = typename decltype(c)::Fr;
    out(o, in<Fr>(a) + in<Fr>(b));
  });
}
void hc_fr_sub(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fr = typename decltype(c)::Fr;
    out(o, in<Fr>(a) - in<Fr>(b));
  });
}
// The NTT passes' lazy arithmetic on values in [0, 2r) (ntt.cuh): op 0
// add_2p, 1 sub_2p, 2 mont_mul_2p(a, b) (a < r), 3 b reduced, 4
// div_pow2(a, k) with k = b's limb 0.
void hc_fr_lazy(int curve, int op, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fr = typename decltype(c)::Fr;
    const Fr x = in<Fr>(a), y = in<Fr>(b);
    Fr r;
    switch (op) {
      case 0: r = Fr::add_2p(x, y); break;
      case 1: r = Fr::sub_2p(x, y); break;
      case 2: r = Fr::mont_mul_2p(x, y); break;
      case 4: r = Fr::div_pow2(x, (int)y.v[0]); break;
      default: r = y.reduced(); break;
    }
    out(o, r);
  });
}
// vec.cu's kernels over n elements: b is a vector (pl_fr_vec) or, when
// constant, one element (pl_fr_vec_const).
void hc_fr_vec(int curve, int op, uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n,
               int constant) {
  on(curve, [&](auto c) {
    using Fr = typename decltype(c)::Fr;
    for (size_t i = 0; i < n; i++)
      out(dst + 4 * i, vec_op(op, in<Fr>(a + 4 * i), in<Fr>(constant ? b : b + 4 * i)));
  });
}
void hc_fp_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fp = typename decltype(c)::Fp;
    out(o, in<Fp>(a) * in<Fp>(b));
  });
}
void hc_fp_mul_sub_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b,
                       const uint64_t* c_, const uint64_t* d) {
  on(curve, [&](auto c) {
    using Fp = typename decltype(c)::Fp;
    out(o, Fp::mul_sub_mul(in<Fp>(a), in<Fp>(b), in<Fp>(c_), in<Fp>(d)));
  });
}
// fp64.cuh (BLS12-381's Fp): the FP64-pipe multiplication, through its
// representation (in and out of it each time) or along a chain of iters
// squarings done in it (one conversion each way, the benchmark kernel's
// shape).
void hc_fp64_mul(uint64_t* o, const uint64_t* a, const uint64_t* b) {
  using Fp = bls12_381::Fp;
  out(o, Fp64::mont_mul(Fp64::from(in<Fp>(a)), Fp64::from(in<Fp>(b))).to_fp());
}
void hc_fp64_squarings(uint64_t* o, const uint64_t* a, int iters) {
  Fp64 t = Fp64::from(in<bls12_381::Fp>(a));
  for (int k = 0; k < iters; k++) t = Fp64::mont_mul(t, t);
  out(o, t.to_fp());
}
void hc_fp2_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fp2 = typename decltype(c)::Fp2;
    out(o, in<Fp2>(a) * in<Fp2>(b));
  });
}
void hc_fp2_sqr(int curve, uint64_t* o, const uint64_t* a) {
  on(curve, [&](auto c) {
    using Fp2 = typename decltype(c)::Fp2;
    out(o, in<Fp2>(a).sqr());
  });
}

// The default arithmetic called directly (also what Field::sqr and Fp2's
// operator* are by default; field.cuh).
void hc_fp_sqr(int curve, uint64_t* o, const uint64_t* a) {
  on(curve, [&](auto c) {
    using Fp = typename decltype(c)::Fp;
    out(o, Fp::mont_sqr(in<Fp>(a)));
  });
}
// Fr's squaring as the kernels compute it (Field::sqr: mont_sqr where the
// modulus allows it, BN254's; mont_mul on BLS12-381's).
void hc_fr_sqr(int curve, uint64_t* o, const uint64_t* a) {
  on(curve, [&](auto c) {
    using Fr = typename decltype(c)::Fr;
    out(o, in<Fr>(a).sqr());
  });
}
void hc_fp2_mul_lazy(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b) {
  on(curve, [&](auto c) {
    using Fp2 = typename decltype(c)::Fp2;
    out(o, Fp2::mul_lazy(in<Fp2>(a), in<Fp2>(b)));
  });
}

// fixed.cuh's inverses (binary extended Euclid), 0 for 0.
void hc_fp_inv(int curve, uint64_t* o, const uint64_t* a) {
  on(curve, [&](auto c) {
    using Fp = typename decltype(c)::Fp;
    out(o, inv(in<Fp>(a)));
  });
}
void hc_fp2_inv(int curve, uint64_t* o, const uint64_t* a) {
  on(curve, [&](auto c) {
    using Fp2 = typename decltype(c)::Fp2;
    out(o, inv(in<Fp2>(a)));
  });
}

// The curve's constants (curves.cuh) into o: what 0 p, 1 R mod p, 2 R^2
// mod p of Fp; 3, 4, 5 the same of Fr; 6 G1's b; 7 G2's b (Fp2), in
// Montgomery form. Returns the limbs written (64-bit).
int hc_constant(int curve, int what, uint64_t* o) {
  int n = 0;
  on(curve, [&](auto c) {
    using C = decltype(c);
    using Fr = typename C::Fr;
    using Fp = typename C::Fp;
    Fp p;
    Fr r;
    for (int i = 0; i < Fp::N; i++) p.v[i] = what == 0 ? Fp::Params::mod(i) : what == 1 ? Fp::Params::one(i) : Fp::Params::r2(i);
    for (int i = 0; i < Fr::N; i++) r.v[i] = what == 3 ? Fr::Params::mod(i) : what == 4 ? Fr::Params::one(i) : Fr::Params::r2(i);
    if (what <= 2) out(o, p), n = Fp::N / 2;
    else if (what <= 5) out(o, r), n = Fr::N / 2;
    else if (what == 6) out(o, C::b1()), n = Fp::N / 2;
    else out(o, C::b2()), n = Fp::N;
  });
  return n;
}

// curve.cuh's on_curve for G1 (g2 == 0) or G2 points of the curve.
int hc_on_curve(int curve, int g2, const uint64_t* p) {
  int ok = 0;
  on(curve, [&](auto c) {
    using C = decltype(c);
    if (g2)
      ok = on_curve(in<Affine<typename C::Fp2>>(p), C::b2());
    else
      ok = on_curve(in<Affine<typename C::Fp>>(p), C::b1());
  });
  return ok;
}

// msm_affine.cuh's scratch bound for a G2 (g2 != 0) or G1 MSM of the
// curve of total pairs in nb buckets.
uint64_t hc_ba_scratch_bytes(int curve, int g2, uint64_t total, uint32_t nb) {
  uint64_t r = 0;
  on_group(curve, g2, [&](auto, auto f) { r = ba_scratch_bytes<decltype(f)>(total, nb, BA_SHAPE); });
  return r;
}

}  // extern "C"

template <class Fr>
static void pow_full(std::vector<Fr>& out, Fr base, Fr c, size_t count) {
  out.resize(count);
  Fr x = c;
  for (size_t i = 0; i < count; i++) {
    out[i] = x;
    x = x * base;
  }
}

// One pass as k_ntt_pass runs it, its threads one after the other
// between barriers: the first quad step reads global memory, the last
// one (k even) writes it, a pair step (k odd) ends on the tile.
template <bool DIF, class Fr>
static void emu_pass(Fr* x, const Fr* tw, const NttPass& p, bool last, int div_log) {
  const uint32_t T = 1u << p.tile_log();
  const int nq = p.k / 2;
  const bool pair = p.k & 1;
  std::vector<Fr> tile(T);
  std::vector<NttQuad<Fr>> q(T / 4);
  std::vector<std::array<Fr, 4>> a(T / 4);
  for (uint64_t b = 0; b < p.blocks(); b++) {
    if (nq > 0) {
      for (uint32_t r = 0; r < T / 4; r++) {
        ntt_quad_load(p, b, r, ntt_quad_mlo(p.k, DIF, 0), tw, &q[r]);
        for (int i = 0; i < 4; i++) a[r][i] = x[p.index(b, q[r].t[i])];
      }
      for (int s = 0; s < nq; s++) {
        for (uint32_t r = 0; r < T / 4; r++) {
          ntt_quad_math<DIF>(a[r].data(), q[r]);
          for (int i = 0; i < 4; i++) {
            if (s == nq - 1 && !pair)
              x[p.index(b, q[r].t[i])] = last ? ntt_out(a[r][i], div_log) : a[r][i];
            else
              tile[ntt_slot(p.lo == 0, q[r].t[i])] = a[r][i];
          }
        }
        if (s == nq - 1) break;
        for (uint32_t r = 0; r < T / 4; r++) {
          ntt_quad_load(p, b, r, ntt_quad_mlo(p.k, DIF, s + 1), tw, &q[r]);
          for (int i = 0; i < 4; i++) a[r][i] = tile[ntt_slot(p.lo == 0, q[r].t[i])];
        }
      }
      if (!pair) continue;
    } else {
      for (uint32_t t = 0; t < T; t++) tile[ntt_slot(p.lo == 0, t)] = x[p.index(b, t)];
    }
    const int m = ntt_pair_m(p.k, DIF);
    for (uint32_t pi = 0; pi < T / 2; pi++) {
      uint32_t t0, t1;
      uint64_t e;
      p.pair(b, pi, m, &t0, &t1, &e);
      t0 = ntt_slot(p.lo == 0, t0);
      t1 = ntt_slot(p.lo == 0, t1);
      if (DIF)
        butterfly_dif(tile[t0], tile[t1], tw[e]);
      else
        butterfly_dit(tile[t0], tile[t1], tw[e]);
    }
    for (uint32_t t = 0; t < T; t++) {
      const Fr v = tile[ntt_slot(p.lo == 0, t)];
      x[p.index(b, t)] = last ? ntt_out(v, div_log) : v;
    }
  }
}

template <class Fr>
static void emu_passes(Fr* x, const std::vector<Fr>& tw, int L, bool dif, int div_log = 0) {
  NttPass passes[8];
  int np = ntt_plan(L, passes);
  for (int i = 0; i < np; i++) {
    const NttPass& p = passes[dif ? np - 1 - i : i];
    if (dif)
      emu_pass<true>(x, tw.data(), p, i == np - 1, div_log);
    else
      emu_pass<false>(x, tw.data(), p, i == np - 1, div_log);
  }
}

template <class Fr>
static void emu_scale(Fr* x, int L, const std::vector<Fr>& tab, bool rev) {
  for (uint64_t i = 0; i < (1ull << L); i++) x[i] = x[i] * tab[rev ? bitrev(i, L) : i];
}

extern "C" {

uint64_t hc_set_sort_per_window_min(uint64_t n) {
  const uint64_t prev = sort_per_window_min;
  sort_per_window_min = n;
  return prev;
}
// The batch-affine accumulation on (with the given shape) or off (the
// XYZZ one); returns 1 if it was on.
int hc_set_msm_affine(int on, uint32_t slots, uint32_t group, uint32_t inv_max) {
  const int prev = accum_affine;
  accum_affine = on != 0;
  ba_shape = on ? BaShape{slots, group, inv_max} : BA_SHAPE;
  return prev;
}
// The MSM, its table and the batch sums of the curve's G1 (g2 == 0) or
// G2, as emu.h emulates the kernels.
void hc_msm(int curve, int g2, const void* bases, const uint64_t* scalars, size_t n, int mont, int c,
            int seg, int chunk, size_t table_n, void* out) {
  on_group(curve, g2, [&](auto k, auto f) {
    emu_msm<typename decltype(k)::Fr, decltype(f)>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
  });
}
void hc_precompute(int curve, int g2, const void* bases, size_t n, int c, size_t batch, void* out) {
  on_group(curve, g2, [&](auto, auto f) { emu_precompute<decltype(f)>(bases, n, c, batch, out); });
}
void hc_sum(int curve, int g2, const void* bases, const int32_t* idx, size_t count, uint32_t threads,
            void* out) {
  on_group(curve, g2, [&](auto, auto f) { emu_sum<decltype(f)>(bases, idx, count, threads, out); });
}

// The shared-memory layout of the NTT passes of 2^L points (ntt.cuh's
// slots and quad numbering), by sm_90's bank model: 32 banks of 4 bytes,
// and a warp's access takes as many wavefronts as the most distinct words
// one bank holds. An element is 32 bytes and a lane reads or writes it as
// two 16-byte halves, so a half of W lanes takes at least W/4
// wavefronts. Returns the most wavefronts any warp access of a step of
// the lowest pass (the swizzled one) takes beyond that (0: none worse
// than the elements' layout must be), or 1000 + the pass if a warp of a
// quad step of any pass has lanes on both sides of the unit-twiddle
// branch.
int hc_ntt_layout_excess(int L) {
  NttPass passes[8];
  const int np = ntt_plan(L, passes);
  int worst = 0;
  for (int pi = 0; pi < np; pi++) {
    const NttPass& p = passes[pi];
    const uint32_t T = 1u << p.tile_log();
    const uint32_t threads = T >= 4 ? T / 4 : 1;
    // one warp access: lane -> tile element (or none), both halves; the
    // lowest pass only
    auto check = [&](const std::vector<int64_t>& elems) {
      if (p.lo != 0) return;
      for (int h = 0; h < 2; h++) {
        std::map<uint32_t, std::set<uint64_t>> banks;
        int lanes = 0;
        for (int64_t t : elems) {
          if (t < 0) continue;
          lanes++;
          const uint64_t word = (uint64_t)ntt_slot(true, (uint32_t)t) * 8 + h * 4;
          for (int c = 0; c < 4; c++) banks[(word + c) % 32].insert(word + c);
        }
        size_t most = 0;
        for (auto& b : banks) most = std::max(most, b.second.size());
        const int fewest = (lanes * 8 + 31) / 32;
        worst = std::max(worst, (int)most - fewest);
      }
    };
    for (uint32_t w0 = 0; w0 < threads; w0 += 32) {
      const uint32_t w1 = std::min(threads, w0 + 32);
      for (int s = 0; s < p.k / 2; s++) {
        const int mlo = ntt_quad_mlo(p.k, true, s);  // DIT's steps are the same set
        std::vector<std::vector<int64_t>> rows(4);
        int units = 0;
        for (uint32_t r = w0; r < w1; r++) {
          uint32_t t[4];
          uint64_t e[3];
          ntt_quad(p, 0, r, mlo, t, e);
          units += ntt_quad_units(p, mlo, e);
          for (int i = 0; i < 4; i++) rows[i].push_back(t[i]);
        }
        if (units != 0 && units != (int)(w1 - w0)) return 1000 + pi;
        for (auto& e : rows) check(e);
      }
      if (p.k & 1) {
        for (int m : {0, p.k - 1})
          for (uint32_t j = 0; j * threads < T / 2; j++) {
            std::vector<int64_t> e0, e1;
            for (uint32_t r = w0; r < w1; r++) {
              uint32_t t0 = 0, t1 = 0;
              uint64_t e;
              const uint32_t pr = r + j * threads;
              if (pr < T / 2) p.pair(0, pr, m, &t0, &t1, &e);
              e0.push_back(pr < T / 2 ? (int64_t)t0 : -1);
              e1.push_back(pr < T / 2 ? (int64_t)t1 : -1);
            }
            check(e0);
            check(e1);
          }
      }
      for (uint32_t i = 0; i * threads < T; i++) {
        std::vector<int64_t> e;
        for (uint32_t r = w0; r < w1; r++) e.push_back(r + i * threads < T ? (int64_t)(r + i * threads) : -1);
        check(e);
      }
    }
  }
  return worst;
}

// The curve's NTT (ntt.cu's pl_ntt) of 2^L elements in place; dom:
// omega, omega_inv, g, g_inv, n_inv, den (4 limbs each).
void hc_ntt(int curve, uint64_t* data, int L, const uint64_t* dom, int inverse, int dif, int coset) {
  on(curve, [&](auto k) {
    using Fr = typename decltype(k)::Fr;
    const Fr om = in<Fr>(dom), omi = in<Fr>(dom + 4), g = in<Fr>(dom + 8), gi = in<Fr>(dom + 12),
             ninv = in<Fr>(dom + 16);
    const size_t n = 1ull << L;
    std::vector<Fr> xv = copy_in<Fr>(data, n);
    Fr* x = xv.data();
    std::vector<Fr> tw, tab;
    pow_full(tw, inverse ? omi : om, Fr::one(), n / 2 ? n / 2 : 1);
    if (!inverse && coset) {
      pow_full(tab, g, Fr::one(), n);
      emu_scale(x, L, tab, !dif);
    }
    emu_passes(x, tw, L, dif != 0, inverse && !coset ? L : 0);
    if (inverse && coset) {
      pow_full(tab, gi, ninv, n);
      emu_scale(x, L, tab, dif);
    }
    memcpy(data, (const void*)x, n * sizeof(Fr));
  });
}

// The curve's fused H step (ntt.cu's pl_compute_h) on a, b, c.
void hc_compute_h(int curve, uint64_t* a, uint64_t* b, uint64_t* c, int L, const uint64_t* dom) {
  on(curve, [&](auto k) {
    using Fr = typename decltype(k)::Fr;
    const Fr om = in<Fr>(dom), omi = in<Fr>(dom + 4), g = in<Fr>(dom + 8), gi = in<Fr>(dom + 12),
             ninv = in<Fr>(dom + 16), den = in<Fr>(dom + 20);
    const size_t n = 1ull << L;
    std::vector<Fr> twf, twi, gn, ginvn;
    pow_full(twf, om, Fr::one(), n / 2 ? n / 2 : 1);
    pow_full(twi, omi, Fr::one(), n / 2 ? n / 2 : 1);
    pow_full(gn, g, ninv, n);
    pow_full(ginvn, gi, ninv, n);
    std::vector<Fr> av = copy_in<Fr>(a, n), bv = copy_in<Fr>(b, n), cv = copy_in<Fr>(c, n);
    Fr* v[3] = {av.data(), bv.data(), cv.data()};
    for (int i = 0; i < 3; i++) {
      emu_passes(v[i], twi, L, true);
      emu_scale(v[i], L, gn, true);
      emu_passes(v[i], twf, L, false);
    }
    for (size_t i = 0; i < n; i++) v[0][i] = (v[0][i] * v[1][i] - v[2][i]) * den;
    emu_passes(v[0], twi, L, true);
    emu_scale(v[0], L, ginvn, true);
    memcpy(a, (const void*)v[0], n * sizeof(Fr));
  });
}

}  // extern "C"

// fixed.cu's kernels: k_fixed_mul for each scalar, then k_fixed_affine in
// batches of `batch` points.
template <class Fr, class F>
static void fixed(const void* table, size_t table_len, int c, const uint64_t* scalars, size_t n,
                  size_t batch, void* out) {
  std::vector<Affine<F>> t = copy_in<Affine<F>>(table, table_len);
  std::vector<Fr> s = copy_in<Fr>(scalars, n);
  std::vector<XYZZ<F>> acc(n);
  std::vector<F> scratch(n);
  std::vector<Affine<F>> res(n);
  for (size_t i = 0; i < n; i++) {
    Fr k = s[i].from_mont();
    acc[i] = fixed_mul<F>(t.data(), c, k.v);
  }
  for (size_t lo = 0; lo < n; lo += batch) {
    size_t hi = lo + batch < n ? lo + batch : n;
    fixed_to_affine<F>(acc.data(), res.data(), scratch.data() + lo, lo, hi);
  }
  memcpy(out, (const void*)res.data(), n * sizeof(Affine<F>));
}

extern "C" {
void hc_fixed(int curve, int g2, const void* table, size_t table_len, int c, const uint64_t* scalars,
              size_t n, size_t batch, void* out) {
  on_group(curve, g2, [&](auto k, auto f) {
    fixed<typename decltype(k)::Fr, decltype(f)>(table, table_len, c, scalars, n, batch, out);
  });
}
}
