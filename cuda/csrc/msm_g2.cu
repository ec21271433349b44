// msm_g2.cu: G2 (Fp2) instantiation of the MSM and batch-addition kernels.
#include "msm_impl.cuh"

extern "C" int pl_msm_g2(pl_stream* s, const void* bases, const void* scalars, size_t n, int mont,
                         int c, size_t table_n, size_t nnz, size_t units, void* out) {
  return pl::msmk::msm<pl::Fp2>(s, bases, scalars, n, mont, c, table_n, nnz, units, out);
}

extern "C" int pl_precompute_g2(pl_stream* s, void* table, size_t n, int c) {
  return pl::msmk::precompute<pl::Fp2>(s, table, n, c);
}

extern "C" int pl_sum_g2(pl_stream* s, const void* bases, size_t nbases, const int32_t* idx,
                         size_t count, void* out) {
  return pl::msmk::sum<pl::Fp2>(s, bases, nbases, idx, count, out);
}
