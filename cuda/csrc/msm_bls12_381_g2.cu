// msm_bls12_381_g2.cu: BLS12-381's G2 (Fp2) instance of the MSM and batch-addition
// kernels (msm_impl.cuh); msm.cu dispatches to it.
#include "msm_impl.cuh"

template struct pl::MsmEntry<pl::bls12_381::Curve, 2>;
