// vec.cu: element-wise operations over Fr vectors (Montgomery form), one
// grid-stride kernel per call; the operation itself is in vec.cuh.
#include <string.h>
#include "common.cuh"
#include "vec.cuh"

using pl::Fr;

namespace {

template <int OP>
__global__ void k_vec(Fr* dst, const Fr* a, const Fr* b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = pl::vec_op(OP, a[i], b[i]);
}

template <int OP>
__global__ void k_vec_const(Fr* dst, const Fr* a, Fr c, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = pl::vec_op(OP, a[i], c);
}

}  // namespace

extern "C" int pl_fr_vec(pl_stream* s, int op, void* dst, const void* a, const void* b, size_t n) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (n == 0) return 0;
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

extern "C" int pl_fr_vec_const(pl_stream* s, int op, void* dst, const void* a, pl_fr c, size_t n) {
  PL_CHECK(cudaSetDevice(s->dev));
  if (n == 0) return 0;
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
