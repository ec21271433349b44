// ntt.cu: NTT over a curve's Fr (gnark's fft.Domain semantics) and the
// fused Groth16 H step, templated on Fr and instantiated for each curve
// (curves.cuh); the C entry points dispatch on the curve. Twiddle and
// coset tables are built once per device, curve and domain, on the first
// stream that asks, and shared through an event.
#include <map>
#include <mutex>
#include <string>
#include <string.h>
#include "common.cuh"
#include "ntt.cuh"

using pl::with_curve;

namespace {

// Powers base^i * c for i < count, as two tables: lo[i & 4095] * hi[i >> 12].
template <class Fr>
struct PowTable {
  Fr* lo = nullptr;  // 4096
  Fr* hi = nullptr;  // max(1, count >> 12)
};

template <class Fr>
struct DomainTables {
  int logn;
  Fr* tw[2] = {nullptr, nullptr};  // omega^i, omega^-i for i < n/2
  PowTable<Fr> g, g_n, ginv_n;       // g^i, g^i/n, g^-i/n
  PowTable<Fr> twsrc[2];
  cudaEvent_t ready;
};

std::mutex g_mu;

// The domains' tables of device dev (one map a curve: a template
// instance's).
template <class Fr>
std::map<std::string, DomainTables<Fr>*>& tables_of(int dev) {
  static std::map<std::string, DomainTables<Fr>*> t[64];
  return t[dev & 63];
}

template <class Fr>
Fr load(const uint64_t v[4]) {
  Fr r;
  memcpy(r.v, v, 32);
  return r;
}

template <class Fr>
void host_pow_table(Fr base, Fr c, size_t count, std::vector<Fr>& lo, std::vector<Fr>& hi) {
  lo.resize(4096);
  Fr x = Fr::one();
  for (int i = 0; i < 4096; i++) {
    lo[i] = x;
    x = x * base;
  }
  // x = base^4096
  size_t nh = count >> 12;
  if (nh == 0) nh = 1;
  hi.resize(nh);
  Fr y = c;
  for (size_t j = 0; j < nh; j++) {
    hi[j] = y;
    y = y * x;
  }
}

template <class Fr>
__global__ void k_pow_expand(Fr* out, size_t count, const Fr* lo, const Fr* hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = lo[i & 4095] * hi[i >> 12];
}

template <class Fr>
int upload_table(pl_stream* s, PowTable<Fr>* t, Fr base, Fr c, size_t count) {
  std::vector<Fr> lo, hi;
  host_pow_table(base, c, count, lo, hi);
  PL_CHECK(cudaMalloc(&t->lo, lo.size() * sizeof(Fr)));
  PL_CHECK(cudaMalloc(&t->hi, hi.size() * sizeof(Fr)));
  PL_TRY(pl_h2d_staged(s, t->lo, lo.data(), lo.size() * sizeof(Fr)));
  PL_TRY(pl_h2d_staged(s, t->hi, hi.data(), hi.size() * sizeof(Fr)));
  return 0;
}

// Whether d's omega has order 2^logn exactly in Fr: a domain of another
// curve's Fr (or none at all) does not.
template <class Fr>
bool omega_of_order(const pl_domain* d) {
  Fr w = load<Fr>(d->omega);
  for (int i = 0; i < d->logn; i++) {
    if (w == Fr::one()) return false;  // order below 2^logn
    w = w * w;
  }
  return w == Fr::one();
}

template <class Fr>
int build_tables(pl_stream* s, const pl_domain* d, DomainTables<Fr>* t) {
  const size_t n = 1ull << d->logn;
  const size_t half = n / 2 ? n / 2 : 1;
  Fr one = Fr::one();
  for (int dir = 0; dir < 2; dir++) {
    PowTable<Fr> tmp;
    PL_TRY(upload_table(s, &tmp, load<Fr>(dir ? d->omega_inv : d->omega), one, half));
    PL_CHECK(cudaMalloc(&t->tw[dir], half * sizeof(Fr)));
    k_pow_expand<<<grid_for(half, 256), 256, 0, s->s>>>(t->tw[dir], half, tmp.lo, tmp.hi);
    PL_LAUNCHED();
    t->twsrc[dir] = tmp;  // small; kept with the domain, freed never
  }
  Fr ninv = load<Fr>(d->n_inv);
  PL_TRY(upload_table(s, &t->g, load<Fr>(d->g), one, n));
  PL_TRY(upload_table(s, &t->g_n, load<Fr>(d->g), ninv, n));
  PL_TRY(upload_table(s, &t->ginv_n, load<Fr>(d->g_inv), ninv, n));
  PL_CHECK(cudaEventCreateWithFlags(&t->ready, cudaEventDisableTiming));
  PL_CHECK(cudaEventRecord(t->ready, s->s));
  return 0;
}

// Tables for d, built on s the first time; s waits until they are ready.
// A domain the curve's Fr has no room for (2^logn past its 2-adicity) or
// whose omega is not of order 2^logn (another curve's) is PL_ERR_ARG.
template <class Fr>
int get_tables(pl_stream* s, const pl_domain* d, DomainTables<Fr>** out) {
  if (d->logn < 0 || d->logn > 30 || d->logn > Fr::Params::TWO_ADICITY) return PL_ERR_ARG;
  std::string key((const char*)d, sizeof(pl_domain));
  std::lock_guard<std::mutex> lock(g_mu);
  auto& m = tables_of<Fr>(s->dev);
  auto it = m.find(key);
  if (it == m.end()) {
    if (!omega_of_order<Fr>(d)) return PL_ERR_ARG;
    DomainTables<Fr>* t = new DomainTables<Fr>();
    t->logn = d->logn;
    int r = build_tables(s, d, t);
    if (r != 0) {
      delete t;
      return r;
    }
    it = m.emplace(key, t).first;
  }
  PL_CHECK(cudaStreamWaitEvent(s->s, it->second->ready, 0));
  *out = it->second;
  return 0;
}

// The register cap of 3 blocks of 256 threads an SM (at most 85
// registers): 24 warps instead of 16 at the compiler's 98 registers; NTT
// 2^24 6.66 -> 5.80 ms on the H200. With tiles of 512 elements
// (PL_NTT_TILE_LOG 9) a block is 128 threads, 6 an SM: a barrier waits
// for 4 warps, not 8, and an SM's blocks are at more different steps (NTT
// 2^24 1.02-1.04x against 1024-element tiles, docs/design/ntt.md). A cap of
// 64 registers (PL_NTT_MINBLOCKS=4) spills 156-252 bytes and is
// 1.04-1.11x slower. PL_NTT_LB_THREADS and PL_NTT_MINBLOCKS are A/B
// knobs (the cap is 65536 / (their product) registers).
//
// A thread does one quad a quad step (run_passes launches tile/4
// threads). The first quad step takes its rows straight from global
// memory and the last one stores its rows there, so a pass of k = 8
// stages goes through shared memory 3 times (not 5) and waits at 3
// barriers (not 5); a step's twiddles are loaded before the barrier that
// precedes it. A pass with an odd k ends with a pair step on the tile.
//
// The steps are lazy (ntt.cuh): elements are in [0, 2r), and the NTT's
// last pass (`last`) stores them reduced.
//
// -DPL_NTT_TW_EARLY=0 loads a step's twiddles after the barrier (A/B).
#ifndef PL_NTT_TW_EARLY
#define PL_NTT_TW_EARLY 1
#endif
#ifndef PL_NTT_MINBLOCKS
#define PL_NTT_MINBLOCKS 3
#endif
#ifndef PL_NTT_LB_THREADS
#define PL_NTT_LB_THREADS 256
#endif
// LOW: the pass over the lowest bits (p.lo = 0), compiled apart so that
// neither kernel carries the other's index arithmetic.
template <bool DIF, bool LOW, class Fr>
__global__ void __launch_bounds__(PL_NTT_LB_THREADS, PL_NTT_MINBLOCKS)
    k_ntt_pass(Fr* x, const Fr* tw, pl::NttPass p, bool last, int div_log) {
  // one extern array for every instance (a template's own type would
  // redeclare it); 16-byte aligned, as Fr is
  extern __shared__ uint4 tile_mem[];
  Fr* tile = reinterpret_cast<Fr*>(tile_mem);
  if (LOW) {
    p.lo = 0;
    p.logG = 0;
  } else {
    p.logS = 0;
  }
  const uint64_t b = blockIdx.x;
  const uint32_t T = 1u << p.tile_log();
  const int nq = p.k / 2;
  const bool pair = p.k & 1;
  if (nq > 0) {
    const uint32_t r = threadIdx.x;
    pl::NttQuad<Fr> q;
    Fr a[4];
    pl::ntt_quad_load(p, b, r, pl::ntt_quad_mlo(p.k, DIF, 0), tw, &q);
    PL_UNROLL for (int i = 0; i < 4; i++) a[i] = x[p.index(b, q.t[i])];
    for (int s = 0;; s++) {
      pl::ntt_quad_math<DIF>(a, q);
      if (s == nq - 1 && !pair) {
        PL_UNROLL for (int i = 0; i < 4; i++) x[p.index(b, q.t[i])] = last ? pl::ntt_out(a[i], div_log) : a[i];
        return;
      }
      PL_UNROLL for (int i = 0; i < 4; i++) tile[pl::ntt_slot(LOW, q.t[i])] = a[i];
      if (s == nq - 1) break;
#if PL_NTT_TW_EARLY
      pl::ntt_quad_load(p, b, r, pl::ntt_quad_mlo(p.k, DIF, s + 1), tw, &q);
      __syncthreads();
#else
      __syncthreads();
      pl::ntt_quad_load(p, b, r, pl::ntt_quad_mlo(p.k, DIF, s + 1), tw, &q);
#endif
      PL_UNROLL for (int i = 0; i < 4; i++) a[i] = tile[pl::ntt_slot(LOW, q.t[i])];
    }
  } else {
    for (uint32_t t = threadIdx.x; t < T; t += blockDim.x) tile[pl::ntt_slot(LOW, t)] = x[p.index(b, t)];
  }
  // the pair step (k odd), two pairs a thread
  const int m = pl::ntt_pair_m(p.k, DIF);
  __syncthreads();
  for (uint32_t pi = threadIdx.x; pi < T / 2; pi += blockDim.x) {
    uint32_t t0, t1;
    uint64_t e;
    p.pair(b, pi, m, &t0, &t1, &e);
    t0 = pl::ntt_slot(LOW, t0);
    t1 = pl::ntt_slot(LOW, t1);
    if (DIF)
      pl::butterfly_dif(tile[t0], tile[t1], tw[e]);
    else
      pl::butterfly_dit(tile[t0], tile[t1], tw[e]);
  }
  __syncthreads();
  PL_UNROLL for (int i = 0; i < 4; i++) {
    const uint32_t t = threadIdx.x + i * blockDim.x;
    if (t < T) {
      const Fr v = tile[pl::ntt_slot(LOW, t)];
      x[p.index(b, t)] = last ? pl::ntt_out(v, div_log) : v;
    }
  }
}

__device__ __forceinline__ uint64_t dev_bitrev(uint64_t i, int L) {
  return L == 0 ? 0 : (__brevll(i) >> (64 - L));
}

template <class Fr>
__global__ void k_scale(Fr* x, int L, const Fr* lo, const Fr* hi, int rev) {
  const size_t n = 1ull << L;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t e = rev ? dev_bitrev(i, L) : i;
    x[i] = x[i] * (lo[e & 4095] * hi[e >> 12]);
  }
}

template <class Fr>
__global__ void k_h_pointwise(Fr* a, const Fr* b, const Fr* c, size_t n, Fr den) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    a[i] = (a[i] * b[i] - c[i]) * den;
}

// Fr: any 32-byte element (the permutation is the same on every curve)
template <class Fr>
__global__ void k_bitrev(Fr* x, int L) {
  const size_t n = 1ull << L;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    size_t j = dev_bitrev(i, L);
    if (i < j) {
      Fr t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }
}

template <class Fr>
__global__ void k_convert(Fr* x, size_t n, int to_mont) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    x[i] = to_mont ? x[i].to_mont() : x[i].from_mont();
}

// div_log: ntt_out's (L divides the result by n, 0 does not).
template <class Fr>
int run_passes(pl_stream* s, Fr* x, const Fr* tw, int L, bool dif, int div_log = 0) {
  pl::NttPass passes[8];
  int np = pl::ntt_plan(L, passes);
  for (int i = 0; i < np; i++) {
    const pl::NttPass& p = passes[dif ? np - 1 - i : i];
    // a thread does one quad (or two pairs) per step
    unsigned threads = p.tile_log() >= 2 ? 1u << (p.tile_log() - 2) : 1u;
    size_t smem = sizeof(Fr) << p.tile_log();
    const bool last = i == np - 1;
    const unsigned blocks = (unsigned)p.blocks();
    if (dif && p.lo == 0)
      k_ntt_pass<true, true><<<blocks, threads, smem, s->s>>>(x, tw, p, last, div_log);
    else if (dif)
      k_ntt_pass<true, false><<<blocks, threads, smem, s->s>>>(x, tw, p, last, div_log);
    else if (p.lo == 0)
      k_ntt_pass<false, true><<<blocks, threads, smem, s->s>>>(x, tw, p, last, div_log);
    else
      k_ntt_pass<false, false><<<blocks, threads, smem, s->s>>>(x, tw, p, last, div_log);
    PL_LAUNCHED();
  }
  return 0;
}

template <class Fr>
int scale(pl_stream* s, Fr* x, int L, const PowTable<Fr>& t, int rev) {
  k_scale<<<grid_for(1ull << L, 256), 256, 0, s->s>>>(x, L, t.lo, t.hi, rev);
  PL_LAUNCHED();
  return 0;
}

template <class Fr>
int ntt(pl_stream* s, const pl_domain* d, void* v, int inverse, int dif, int coset) {
  DomainTables<Fr>* t;
  PL_TRY(get_tables(s, d, &t));
  const int L = d->logn;
  Fr* x = (Fr*)v;
  if (!inverse && coset) PL_TRY(scale(s, x, L, t->g, !dif));
  PL_TRY(run_passes(s, x, t->tw[inverse ? 1 : 0], L, dif != 0, inverse && !coset ? L : 0));
  if (inverse && coset) PL_TRY(scale(s, x, L, t->ginv_n, dif));
  return 0;
}

// gnark computeH: for x in a, b, c: FFTInverse(x, DIF); FFT(x, DIT, OnCoset);
// a = (a*b - c) * den; FFTInverse(a, DIF, OnCoset). The iFFT's 1/n and the
// coset FFT's g^j merge into one scaling of the bit-reversed vector.
template <class Fr>
int compute_h(pl_stream* s, const pl_domain* d, void* a, void* b, void* c) {
  DomainTables<Fr>* t;
  PL_TRY(get_tables(s, d, &t));
  const int L = d->logn;
  const size_t n = 1ull << L;
  Fr* v[3] = {(Fr*)a, (Fr*)b, (Fr*)c};
  for (int i = 0; i < 3; i++) {
    PL_TRY(run_passes(s, v[i], t->tw[1], L, true));
    PL_TRY(scale(s, v[i], L, t->g_n, 1));
    PL_TRY(run_passes(s, v[i], t->tw[0], L, false));
  }
  k_h_pointwise<<<grid_for(n, 256), 256, 0, s->s>>>(v[0], v[1], v[2], n, load<Fr>(d->den));
  PL_LAUNCHED();
  PL_TRY(run_passes(s, v[0], t->tw[1], L, true));
  PL_TRY(scale(s, v[0], L, t->ginv_n, 1));
  return 0;
}

template <class Fr>
__global__ void k_busy(Fr* x, size_t n, int iters) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    Fr a = x[i];
    for (int k = 0; k < iters; k++) a = a * a;
    x[i] = a;
  }
}

}  // namespace

extern "C" int pl_ntt(pl_stream* s, int curve, const pl_domain* d, void* v, int inverse, int dif,
                      int coset) {
  PL_CHECK(cudaSetDevice(s->dev));
  return with_curve(curve, [&](auto k) {
    return ntt<typename decltype(k)::Fr>(s, d, v, inverse, dif, coset);
  });
}

extern "C" int pl_bitrev(pl_stream* s, void* v, int logn) {
  using Fr = pl::bls12_381::Fr;  // any curve's: 32-byte elements
  static_assert(sizeof(Fr) == sizeof(pl::bn254::Fr), "the curves' Fr elements differ in size");
  PL_CHECK(cudaSetDevice(s->dev));
  k_bitrev<<<grid_for(1ull << logn, 256), 256, 0, s->s>>>((Fr*)v, logn);
  PL_LAUNCHED();
  return 0;
}

extern "C" int pl_fr_convert(pl_stream* s, int curve, void* v, size_t n, int to_mont) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (n == 0) return 0;
  return with_curve(curve, [&](auto k) {
    using Fr = typename decltype(k)::Fr;
    k_convert<<<grid_for(n, 256), 256, 0, s->s>>>((Fr*)v, n, to_mont);
    PL_LAUNCHED();
    return 0;
  });
}

extern "C" int pl_compute_h(pl_stream* s, int curve, const pl_domain* d, void* a, void* b, void* c) {
  PL_CHECK(cudaSetDevice(s->dev));
  return with_curve(curve, [&](auto k) {
    return compute_h<typename decltype(k)::Fr>(s, d, a, b, c);
  });
}

extern "C" int pl_busy(pl_stream* s, int curve, void* v, size_t n, int iters) {
  PL_CHECK(cudaSetDevice(s->dev));
  return with_curve(curve, [&](auto k) {
    using Fr = typename decltype(k)::Fr;
    k_busy<<<grid_for(n, 256), 256, 0, s->s>>>((Fr*)v, n, iters);
    PL_LAUNCHED();
    return 0;
  });
}
