// msm_bn254_g1.cu: BN254's G1 (Fp) instance of the MSM and batch-addition
// kernels (msm_impl.cuh); msm.cu dispatches to it.
#include "msm_impl.cuh"

template struct pl::MsmEntry<pl::bn254::Curve, 1>;
