// msm_g1.cu: G1 (Fp) instantiation of the MSM and batch-addition kernels.
#include "msm_impl.cuh"

extern "C" int pl_msm_g1(pl_stream* s, const void* bases, const void* scalars, size_t n, int mont,
                         int c, size_t table_n, size_t nnz, size_t units, void* out) {
  return pl::msmk::msm<pl::Fp>(s, bases, scalars, n, mont, c, table_n, nnz, units, out);
}

extern "C" int pl_precompute_g1(pl_stream* s, void* table, size_t n, int c) {
  return pl::msmk::precompute<pl::Fp>(s, table, n, c);
}

extern "C" int pl_sum_g1(pl_stream* s, const void* bases, size_t nbases, const int32_t* idx,
                         size_t count, void* out) {
  return pl::msmk::sum<pl::Fp>(s, bases, nbases, idx, count, out);
}
