// vec.cuh: the element-wise operation of pl_fr_vec and pl_fr_vec_const
// (vec.cu) on one element (b is the constant for the latter), shared by
// the kernels and the host emulation (cuda/internal/hostcheck).
#pragma once
#include "api.h"
#include "field.cuh"

namespace pl {

// Operation codes: PL_VEC_* in api.h.
PL_HD Fr vec_op(int op, const Fr& a, const Fr& b) {
  switch (op) {
    case PL_VEC_MUL: return a * b;
    case PL_VEC_ADD: return a + b;
    default: return a - b;  // PL_VEC_SUB
  }
}

}  // namespace pl
