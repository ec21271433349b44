//go:build cudahost

// The MSM emulation (emu.h) built with the other arithmetic the kernels
// can be built with: the plain one (PL_PLAIN_ARITHMETIC: squarings by mont_mul, Fp2
// multiplications by Karatsuba over three Montgomery multiplications) and
// the point formulas' y3 by two full multiplications (PL_Y3_LAZY=0), while
// hostcheck.cpp has the default (mont_sqr, mul_lazy, mul_sub_mul). So the tests
// check both through the XYZZ additions, doublings and inversions of
// whole MSMs and tables, not only one operation at a time.
//
// The headers are compiled a second time here with different inline
// functions (Field::sqr, Fp2's operator*); `pl` is renamed so that their
// symbols differ from hostcheck.cpp's (one definition rule), else the
// linker could keep either copy.
#define PL_PLAIN_ARITHMETIC 1
#define PL_Y3_LAZY 0
#define pl pl_variants
#include "emu.h"

using namespace pl::emu;

extern "C" {

void hc_variants_msm_g1(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg,
                        int chunk, size_t table_n, void* out) {
  emu_msm<pl::Fp>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
}
void hc_variants_msm_g2(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg,
                        int chunk, size_t table_n, void* out) {
  emu_msm<pl::Fp2>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
}
void hc_variants_precompute_g1(const void* bases, size_t n, int c, size_t batch, void* out) {
  emu_precompute<pl::Fp>(bases, n, c, batch, out);
}
void hc_variants_precompute_g2(const void* bases, size_t n, int c, size_t batch, void* out) {
  emu_precompute<pl::Fp2>(bases, n, c, batch, out);
}

}  // extern "C"
