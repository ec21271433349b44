//go:build cudahost

// The MSM emulation (emu.h) built with the interleaved products of the
// kernels' A/B builds: PL_MUL2 (an addition's Fp and Fp2 products in
// pairs, mont_mul2 / mont_sqr2: two products whose rounds alternate) and
// PL_FP2_ILP (mul_lazy's first two products by mul_wide2, its two
// reductions by redc2). `pl` is renamed as in variants.cpp.
#define PL_MUL2 3
#define PL_FP2_ILP 1
#define pl pl_ilp
#include "emu.h"

using namespace pl::emu;

extern "C" {

void hc_ilp_msm_g1(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg,
                   int chunk, size_t table_n, void* out) {
  emu_msm<pl::Fp>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
}
void hc_ilp_msm_g2(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg,
                   int chunk, size_t table_n, void* out) {
  emu_msm<pl::Fp2>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
}

}  // extern "C"
