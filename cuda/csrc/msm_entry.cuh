// msm_entry.cuh: the entry points of the MSM and batch-addition kernels
// for one group of one curve. msm_impl.cuh defines them; each
// msm_<curve>_g<G>.cu instantiates one (its own translation unit: the
// four build in parallel), and msm.cu's C functions dispatch on the
// curve to them.
#pragma once
#include "common.cuh"

namespace pl {

// C: a curve (curves.cuh); G: 1 (G1, coordinates in C::Fp) or 2 (G2,
// C::Fp2). Arguments and results as api.h's pl_msm_g1, pl_precompute_g1
// and pl_sum_g1 say.
template <class C, int G>
struct MsmEntry {
  static int msm(pl_stream* s, const void* bases, const void* scalars, size_t n, int mont, int c,
                 size_t table_n, size_t nnz, size_t units, void* out);
  static int precompute(pl_stream* s, void* table, size_t n, int c);
  static int sum(pl_stream* s, const void* bases, size_t nbases, const int32_t* idx, size_t count,
                 void* out);
};

}  // namespace pl
