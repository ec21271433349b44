// msm.cu: the C entry points of the MSM, table and batch-addition
// kernels, dispatching on the curve to the instances msm_<curve>_g1.cu
// and msm_<curve>_g2.cu build (msm_entry.cuh).
#include "curves.cuh"
#include "msm_entry.cuh"

using pl::MsmEntry;
using pl::with_curve;

extern "C" int pl_msm_g1(pl_stream* s, int curve, const void* bases, const void* scalars, size_t n,
                         int mont, int c, size_t table_n, size_t nnz, size_t units, void* out) {
  return with_curve(curve, [&](auto k) {
    return MsmEntry<decltype(k), 1>::msm(s, bases, scalars, n, mont, c, table_n, nnz, units, out);
  });
}

extern "C" int pl_msm_g2(pl_stream* s, int curve, const void* bases, const void* scalars, size_t n,
                         int mont, int c, size_t table_n, size_t nnz, size_t units, void* out) {
  return with_curve(curve, [&](auto k) {
    return MsmEntry<decltype(k), 2>::msm(s, bases, scalars, n, mont, c, table_n, nnz, units, out);
  });
}

extern "C" int pl_precompute_g1(pl_stream* s, int curve, void* table, size_t n, int c) {
  return with_curve(curve, [&](auto k) { return MsmEntry<decltype(k), 1>::precompute(s, table, n, c); });
}

extern "C" int pl_precompute_g2(pl_stream* s, int curve, void* table, size_t n, int c) {
  return with_curve(curve, [&](auto k) { return MsmEntry<decltype(k), 2>::precompute(s, table, n, c); });
}

extern "C" int pl_sum_g1(pl_stream* s, int curve, const void* bases, size_t nbases, const int32_t* idx,
                         size_t count, void* out) {
  return with_curve(curve, [&](auto k) {
    return MsmEntry<decltype(k), 1>::sum(s, bases, nbases, idx, count, out);
  });
}

extern "C" int pl_sum_g2(pl_stream* s, int curve, const void* bases, size_t nbases, const int32_t* idx,
                         size_t count, void* out) {
  return with_curve(curve, [&](auto k) {
    return MsmEntry<decltype(k), 2>::sum(s, bases, nbases, idx, count, out);
  });
}
