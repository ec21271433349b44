// msm_g1.cu: G1 (Fp) instantiation of the MSM and batch-addition kernels.
// G1's kernels call one copy of the Fp multiplication instead of inlining
// it (PL_MUL_CALL): an inlined mixed addition is ~11 multiplications of ~800
// instructions, and the smaller code ran faster on the H200 (MSM 2^24
// 238 -> 216 ms, 2^20 25.2 -> 20.9 ms; docs/cuda-perf-notes.md, v4). G2's
// Fp2 kernels are faster inlined.
#define PL_MUL_CALL 1
#include "msm_impl.cuh"

extern "C" int pl_msm_g1(pl_stream* s, const void* bases, const void* scalars, size_t n, int mont,
                         int c, void* out) {
  return pl::msmk::msm<pl::Fp>(s, bases, scalars, n, mont, c, out);
}

extern "C" int pl_sum_g1(pl_stream* s, const void* bases, const int32_t* idx, size_t count,
                         void* out) {
  return pl::msmk::sum<pl::Fp>(s, bases, idx, count, out);
}
