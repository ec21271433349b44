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
using pl::with_curve;

extern "C" {

void hc_variants_msm(int curve, int g2, const void* bases, const uint64_t* scalars, size_t n, int mont,
                     int c, int seg, int chunk, size_t table_n, void* out) {
  with_curve(curve, [&](auto k) {
    using C = decltype(k);
    if (g2)
      emu_msm<typename C::Fr, typename C::Fp2>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
    else
      emu_msm<typename C::Fr, typename C::Fp>(bases, scalars, n, mont, c, seg, chunk, table_n, out);
    return 0;
  });
}
void hc_variants_precompute(int curve, int g2, const void* bases, size_t n, int c, size_t batch,
                            void* out) {
  with_curve(curve, [&](auto k) {
    using C = decltype(k);
    if (g2)
      emu_precompute<typename C::Fp2>(bases, n, c, batch, out);
    else
      emu_precompute<typename C::Fp>(bases, n, c, batch, out);
    return 0;
  });
}

}  // extern "C"
