// fp64.cu: the throughput of fp64.cuh's FP64-pipe multiplication against
// Fp::mont_mul's, alone and with both kinds of warps on the same SMs
// (cudabench -fpmul; docs/design/field-arithmetic.md).
#include "common.cuh"
#include "fp64.cuh"

using Fp = pl::bls12_381::Fp;
using pl::Fp64;

namespace {

constexpr unsigned kThreads = 256;  // 8 warps a block

// iters squarings of each element, a dependent chain a thread. The first
// f64_warps warps of every block square in Fp64 (converted in and out
// once), the others with mont_mul; every element ends the same either way.
__global__ void k_fp_squarings(Fp* x, size_t n, int iters, unsigned f64_warps) {
  const bool f64 = (threadIdx.x >> 5) < f64_warps;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    Fp a = x[i];
    if (f64) {
      Fp64 t = Fp64::from(a);
      for (int k = 0; k < iters; k++) t = Fp64::mont_mul(t, t);
      a = t.to_fp();
    } else {
      for (int k = 0; k < iters; k++) a = Fp::mont_mul(a, a);
    }
    x[i] = a;
  }
}

// Both at once in every thread: iters squarings of x[i] with mont_mul and
// of x[i + half] in Fp64, in one loop, so that ptxas can interleave the two
// chains (the pipes' instructions from one warp) instead of relying on
// other warps.
__global__ void k_fp_squarings_dual(Fp* x, size_t half, int iters) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < half;
       i += (size_t)gridDim.x * blockDim.x) {
    Fp a = x[i];
    Fp64 t = Fp64::from(x[i + half]);
    for (int k = 0; k < iters; k++) {
      a = Fp::mont_mul(a, a);
      t = Fp64::mont_mul(t, t);
    }
    x[i] = a;
    x[i + half] = t.to_fp();
  }
}

// Two events around the kernel, destroyed on every return.
struct Timer {
  cudaEvent_t ev[2] = {nullptr, nullptr};
  ~Timer() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
  }
};

}  // namespace

extern "C" int pl_fp_squarings(pl_stream* s, uint64_t* host, size_t n, int iters,
                               unsigned mode, float* ms) {
  PL_CHECK(cudaSetDevice(s->dev));
  const bool dual = mode == PL_FP_DUAL;
  if (n == 0 || iters < 0 || (mode > kThreads / 32 && !dual) || (dual && n % 2)) return PL_ERR_ARG;
  Scratch sc(s);
  Fp* v;
  PL_TRY(sc.alloc(&v, n));
  Timer t;
  PL_CHECK(cudaEventCreate(&t.ev[0]));
  PL_CHECK(cudaEventCreate(&t.ev[1]));
  PL_CHECK(cudaMemcpyAsync(v, host, n * sizeof(Fp), cudaMemcpyHostToDevice, s->s));
  PL_CHECK(cudaEventRecord(t.ev[0], s->s));
  if (dual)
    k_fp_squarings_dual<<<grid_for(n / 2, kThreads), kThreads, 0, s->s>>>(v, n / 2, iters);
  else
    k_fp_squarings<<<grid_for(n, kThreads), kThreads, 0, s->s>>>(v, n, iters, mode);
  PL_LAUNCHED();
  PL_CHECK(cudaEventRecord(t.ev[1], s->s));
  PL_CHECK(cudaMemcpyAsync(host, v, n * sizeof(Fp), cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  PL_CHECK(cudaEventElapsedTime(ms, t.ev[0], t.ev[1]));
  return 0;
}
