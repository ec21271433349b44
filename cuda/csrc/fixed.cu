// fixed.cu: fixed-base batch scalar multiplication kernels (fixed.cuh),
// G1 and G2 instances of each curve, dispatched on the curve.
#define PL_MUL_CALL 1
#include "common.cuh"
#include "affine.cuh"

namespace pl {
namespace fixedk {
namespace {

constexpr unsigned THREADS = 128;

template <class Fr, class F>
__global__ void k_fixed_mul(const Affine<F>* table, int c, const Fr* scalars, size_t n,
                            XYZZ<F>* acc) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    Fr s = scalars[i].from_mont();
    acc[i] = fixed_mul<F>(table, c, s.v);
  }
}

template <class Fr, class F>
int fixed(pl_stream* s, const void* table, int c, const void* scalars, size_t n, void* out) {
  if (c < 2 || c > 20 || !table || !scalars || !out) return PL_ERR_ARG;
  if (n == 0) return 0;
  PL_CHECK(cudaSetDevice(s->dev));
  Scratch tmp(s);
  XYZZ<F>* acc;
  F* scratch;
  PL_TRY(tmp.alloc(&acc, n));
  PL_TRY(tmp.alloc(&scratch, n));
  k_fixed_mul<Fr, F><<<grid_for(n, THREADS), THREADS, 0, s->s>>>((const Affine<F>*)table, c,
                                                             (const Fr*)scalars, n, acc);
  PL_LAUNCHED();
  return to_affine<F>(s, acc, n, scratch, (Affine<F>*)out);
}

}  // namespace
}  // namespace fixedk
}  // namespace pl

extern "C" int pl_fixed_g1(pl_stream* s, int curve, const void* table, int c, const void* scalars,
                           size_t n, void* out) {
  return pl::with_curve(curve, [&](auto k) {
    using C = decltype(k);
    return pl::fixedk::fixed<typename C::Fr, typename C::Fp>(s, table, c, scalars, n, out);
  });
}

extern "C" int pl_fixed_g2(pl_stream* s, int curve, const void* table, int c, const void* scalars,
                           size_t n, void* out) {
  return pl::with_curve(curve, [&](auto k) {
    using C = decltype(k);
    return pl::fixedk::fixed<typename C::Fr, typename C::Fp2>(s, table, c, scalars, n, out);
  });
}
