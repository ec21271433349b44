// vec.cu: element-wise operations over Fr vectors (Montgomery form), one
// grid-stride kernel per call, templated on a curve's Fr and dispatched
// on the curve; the operation itself is in vec.cuh.
#include <string.h>
#include "common.cuh"
#include "vec.cuh"

using pl::ScalarClass;
using pl::SCALAR_UNIT;
using pl::SCALAR_ZERO;
using pl::scalar_class;
using pl::scalar_one;
using pl::with_curve;

namespace {

template <int OP, class Fr>
__global__ void k_vec(Fr* dst, const Fr* a, const Fr* b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = pl::vec_op(OP, a[i], b[i]);
}

template <int OP, class Fr>
__global__ void k_vec_const(Fr* dst, const Fr* a, Fr c, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = pl::vec_op(OP, a[i], c);
}

template <class Fr>
int vec(pl_stream* s, int op, void* dst, const void* a, const void* b, size_t n) {
  const unsigned g = grid_for(n, 256);
  Fr* d = (Fr*)dst;
  const Fr *x = (const Fr*)a, *y = (const Fr*)b;
  switch (op) {
    case PL_VEC_MUL: k_vec<PL_VEC_MUL><<<g, 256, 0, s->s>>>(d, x, y, n); break;
    case PL_VEC_ADD: k_vec<PL_VEC_ADD><<<g, 256, 0, s->s>>>(d, x, y, n); break;
    case PL_VEC_SUB: k_vec<PL_VEC_SUB><<<g, 256, 0, s->s>>>(d, x, y, n); break;
    default: return PL_ERR_ARG;
  }
  PL_LAUNCHED();
  return 0;
}

template <class Fr>
int vec_const(pl_stream* s, int op, void* dst, const void* a, pl_fr c, size_t n) {
  Fr k;
  memcpy(k.v, c.v, sizeof(k.v));
  const unsigned g = grid_for(n, 256);
  Fr* d = (Fr*)dst;
  const Fr* x = (const Fr*)a;
  switch (op) {
    case PL_VEC_MUL: k_vec_const<PL_VEC_MUL><<<g, 256, 0, s->s>>>(d, x, k, n); break;
    case PL_VEC_ADD: k_vec_const<PL_VEC_ADD><<<g, 256, 0, s->s>>>(d, x, k, n); break;
    default: return PL_ERR_ARG;
  }
  PL_LAUNCHED();
  return 0;
}

// Each thread counts its elements that are not zero and those that are
// units (scalar_class), each warp adds its lanes' counts and one lane
// adds them to out[0] and out[1] (every lane reaches the shuffles: no
// thread leaves early).
template <class Fr>
__global__ void k_count(const Fr* v, size_t n, Fr one, Fr minus, unsigned long long* out) {
  unsigned long long nz = 0, units = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const ScalarClass k = scalar_class(v[i], one, minus);
    nz += k != SCALAR_ZERO;
    units += k == SCALAR_UNIT;
  }
  for (int d = 16; d > 0; d >>= 1) {
    nz += __shfl_down_sync(0xffffffffu, nz, d);
    units += __shfl_down_sync(0xffffffffu, units, d);
  }
  if ((threadIdx.x & 31) == 0) {
    if (nz) atomicAdd(&out[0], nz);
    if (units) atomicAdd(&out[1], units);
  }
}

template <class Fr>
int count(pl_stream* s, const void* v, size_t n, int mont, uint64_t* nonzero, uint64_t* units) {
  Scratch sc(s);
  unsigned long long* d;
  PL_TRY(sc.alloc(&d, 2));
  PL_CHECK(cudaMemsetAsync(d, 0, 2 * sizeof(*d), s->s));
  // a few blocks an SM, grid-stride: the count is one read of v
  const unsigned g = grid_for(n, 256) < 2048 ? grid_for(n, 256) : 2048;
  const Fr one = scalar_one<Fr>(mont);
  k_count<<<g, 256, 0, s->s>>>((const Fr*)v, n, one, one.neg(), d);
  PL_LAUNCHED();
  unsigned long long k[2] = {0, 0};
  PL_CHECK(cudaMemcpyAsync(k, d, sizeof(k), cudaMemcpyDeviceToHost, s->s));
  PL_CHECK(cudaStreamSynchronize(s->s));
  *nonzero = k[0];
  *units = k[1];
  return 0;
}

}  // namespace

extern "C" int pl_fr_vec(pl_stream* s, int curve, int op, void* dst, const void* a, const void* b,
                         size_t n) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (n == 0) return with_curve(curve, [](auto) { return 0; });
  return with_curve(curve, [&](auto k) { return vec<typename decltype(k)::Fr>(s, op, dst, a, b, n); });
}

extern "C" int pl_fr_vec_const(pl_stream* s, int curve, int op, void* dst, const void* a, pl_fr c,
                               size_t n) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (n == 0) return with_curve(curve, [](auto) { return 0; });
  return with_curve(curve, [&](auto k) {
    return vec_const<typename decltype(k)::Fr>(s, op, dst, a, c, n);
  });
}

extern "C" int pl_fr_count(pl_stream* s, int curve, const void* v, size_t n, int mont,
                           uint64_t* nonzero, uint64_t* units) {
  PL_CHECK(cudaSetDevice(s->dev));
  *nonzero = *units = 0;
  if (n == 0) return with_curve(curve, [](auto) { return 0; });
  return with_curve(curve, [&](auto k) {
    return count<typename decltype(k)::Fr>(s, v, n, mont, nonzero, units);
  });
}
