// affine.cuh: the kernel that converts XYZZ points to affine form in
// batches (fixed_to_affine: one inversion a batch), for the fixed-base
// kernels (fixed.cu) and the MSM's precomputed tables (msm_impl.cuh).
#pragma once
#include "common.cuh"
#include "fixed.cuh"

namespace pl {
namespace {

// points a thread converts to affine with one inversion (field_inv),
// sized when that was a^(p-2), ~570 multiplications for Fp (~18 a point);
// the binary Euclid costs less, and a smaller batch is untried.
constexpr size_t AFFINE_BATCH = 32;
constexpr unsigned AFFINE_THREADS = 128;

// out[i] = in[i] in affine form for i < n; scratch holds n elements.
template <class F>
__global__ void k_to_affine(const XYZZ<F>* in, size_t n, F* scratch, Affine<F>* out) {
  const size_t batches = (n + AFFINE_BATCH - 1) / AFFINE_BATCH;
  for (size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x; b < batches;
       b += (size_t)gridDim.x * blockDim.x) {
    size_t lo = b * AFFINE_BATCH, hi = lo + AFFINE_BATCH < n ? lo + AFFINE_BATCH : n;
    fixed_to_affine<F>(in, out, scratch + lo, lo, hi);
  }
}

template <class F>
int to_affine(pl_stream* s, const XYZZ<F>* in, size_t n, F* scratch, Affine<F>* out) {
  const size_t batches = (n + AFFINE_BATCH - 1) / AFFINE_BATCH;
  k_to_affine<F><<<grid_for(batches, AFFINE_THREADS), AFFINE_THREADS, 0, s->s>>>(in, n, scratch,
                                                                                out);
  PL_LAUNCHED();
  return 0;
}

}  // namespace
}  // namespace pl
