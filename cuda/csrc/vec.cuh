// vec.cuh: the element-wise operation of pl_fr_vec and pl_fr_vec_const
// (vec.cu) on one element (b is the constant for the latter), shared by
// the kernels and the host emulation (cuda/internal/hostcheck).
#pragma once
#include "api.h"
#include "curves.cuh"

namespace pl {

// Operation codes: PL_VEC_* in api.h.
template <class Fr>
PL_HD Fr vec_op(int op, const Fr& a, const Fr& b) {
  switch (op) {
    case PL_VEC_MUL: return a * b;
    case PL_VEC_ADD: return a + b;
    default: return a - b;  // PL_VEC_SUB
  }
}

// The class of an MSM scalar, for pl_fr_count and the MSM's gathers:
// zero, a unit (1 or -1 in the scalars' form: one and minus are those two
// there), or any other.
enum ScalarClass { SCALAR_ZERO = 0, SCALAR_UNIT = 1, SCALAR_OTHER = 2 };

template <class Fr>
PL_HD ScalarClass scalar_class(const Fr& x, const Fr& one, const Fr& minus) {
  if (x.is_zero()) return SCALAR_ZERO;
  return x == one || x == minus ? SCALAR_UNIT : SCALAR_OTHER;
}

// 1 in the scalars' form (Montgomery when mont).
template <class Fr>
PL_HD Fr scalar_one(int mont) { return mont ? Fr::one() : Fr::raw_one(); }

}  // namespace pl
