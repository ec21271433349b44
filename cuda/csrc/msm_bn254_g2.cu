// msm_bn254_g2.cu: BN254's G2 (Fp2) instance of the MSM and batch-addition
// kernels (msm_impl.cuh); msm.cu dispatches to it.
#include "msm_impl.cuh"

template struct pl::MsmEntry<pl::bn254::Curve, 2>;
