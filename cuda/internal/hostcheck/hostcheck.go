//go:build cudahost

// Package hostcheck runs the CUDA kernels' arithmetic and indexing on the
// host (build tag cudahost), so the CPU tests can check them against
// gnark-crypto without a GPU: go test -tags cudahost ./cuda/internal/hostcheck
package hostcheck

/*
#cgo CXXFLAGS: -O2 -std=c++17 -I${SRCDIR}/../.. -I${SRCDIR}/../../csrc
#include <stdint.h>
#include <stddef.h>
void hc_fr_mul(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_add(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_sub(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_lazy(int op, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_vec(int op, uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n, int constant);
void hc_fp_mul(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fp_mul_sub_mul(uint64_t* o, const uint64_t* a, const uint64_t* b, const uint64_t* c, const uint64_t* d);
void hc_fp64_mul(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fp64_squarings(uint64_t* o, const uint64_t* a, int iters);
void hc_fp2_mul(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fp2_sqr(uint64_t* o, const uint64_t* a);
void hc_fp_sqr(uint64_t* o, const uint64_t* a);
void hc_fp_inv(uint64_t* o, const uint64_t* a);
uint64_t hc_ba_scratch_bytes(int g2, uint64_t total, uint32_t nb);
void hc_fp2_inv(uint64_t* o, const uint64_t* a);
void hc_fp2_mul_lazy(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_variants_msm_g1(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg, int chunk, size_t table_n, void* out);
void hc_variants_msm_g2(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg, int chunk, size_t table_n, void* out);
void hc_variants_precompute_g1(const void* bases, size_t n, int c, size_t batch, void* out);
void hc_variants_precompute_g2(const void* bases, size_t n, int c, size_t batch, void* out);
uint64_t hc_set_sort_per_window_min(uint64_t n);
int hc_set_msm_affine(int on, uint32_t slots, uint32_t group, uint32_t inv_max);
void hc_msm_g1(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg, int chunk, size_t table_n, void* out);
void hc_msm_g2(const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg, int chunk, size_t table_n, void* out);
void hc_precompute_g1(const void* bases, size_t n, int c, size_t batch, void* out);
void hc_precompute_g2(const void* bases, size_t n, int c, size_t batch, void* out);
void hc_sum_g1(const void* bases, const int32_t* idx, size_t count, uint32_t threads, void* out);
void hc_sum_g2(const void* bases, const int32_t* idx, size_t count, uint32_t threads, void* out);
void hc_ntt(uint64_t* data, int L, const uint64_t* dom, int inverse, int dif, int coset);
int hc_ntt_layout_excess(int L);
void hc_fixed_g1(const void* table, size_t table_len, int c, const uint64_t* scalars, size_t n, size_t batch, void* out);
void hc_fixed_g2(const void* table, size_t table_len, int c, const uint64_t* scalars, size_t n, size_t batch, void* out);
void hc_compute_h(uint64_t* a, uint64_t* b, uint64_t* c, int L, const uint64_t* dom);
*/
import "C"

import (
	"math/bits"
	"unsafe"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/cuda/internal/points"
)

func u64(p unsafe.Pointer) *C.uint64_t { return (*C.uint64_t)(p) }

func FrMul(a, b *fr.Element) (r fr.Element) {
	C.hc_fr_mul(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}
func FrAdd(a, b *fr.Element) (r fr.Element) {
	C.hc_fr_add(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}
func FrSub(a, b *fr.Element) (r fr.Element) {
	C.hc_fr_sub(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// Lazy operation codes (hostcheck.cpp's hc_fr_lazy).
const (
	LazyAdd    = 0
	LazySub    = 1
	LazyMul    = 2
	LazyReduce = 3
	LazyDivPow = 4 // a 2^-k, k = b's low limb (1..31)
)

// FrLazy runs one of field.cuh's [0, 2r) operations (the NTT passes') on
// raw 4-limb values: a and b are integers, not fr.Elements in range.
func FrLazy(op int, a, b *[4]uint64) (r [4]uint64) {
	C.hc_fr_lazy(C.int(op), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// Vector operation codes (api.h's PL_VEC_*).
const (
	VecMul = 1
	VecAdd = 2
	VecSub = 3
)

// FrVec runs vec.cu's element function over a and b into a new vector.
func FrVec(op int, a, b []fr.Element) []fr.Element {
	dst := make([]fr.Element, len(a))
	if len(a) > 0 {
		C.hc_fr_vec(C.int(op), u64(unsafe.Pointer(&dst[0])), u64(unsafe.Pointer(&a[0])), u64(unsafe.Pointer(&b[0])), C.size_t(len(a)), 0)
	}
	return dst
}

// FrVecConst is FrVec with the constant c as second operand.
func FrVecConst(op int, a []fr.Element, c fr.Element) []fr.Element {
	dst := make([]fr.Element, len(a))
	if len(a) > 0 {
		C.hc_fr_vec(C.int(op), u64(unsafe.Pointer(&dst[0])), u64(unsafe.Pointer(&a[0])), u64(unsafe.Pointer(&c)), C.size_t(len(a)), 1)
	}
	return dst
}

func FpMul(a, b *fp.Element) (r fp.Element) {
	C.hc_fp_mul(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// FpMulSubMul is field.cuh's a b - c d with one reduction (mul_sub_mul).
func FpMulSubMul(a, b, c, d *fp.Element) (r fp.Element) {
	C.hc_fp_mul_sub_mul(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)), u64(unsafe.Pointer(c)), u64(unsafe.Pointer(d)))
	return
}

// Fp64Mul is fp64.cuh's multiplication, with a and b converted to its
// representation and the product back.
func Fp64Mul(a, b *fp.Element) (r fp.Element) {
	C.hc_fp64_mul(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// Fp64Squarings squares a iters times in fp64.cuh's representation.
func Fp64Squarings(a *fp.Element, iters int) (r fp.Element) {
	C.hc_fp64_squarings(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), C.int(iters))
	return
}

func Fp2Mul(a, b *curve.E2) (r curve.E2) {
	C.hc_fp2_mul(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}
func Fp2Sqr(a *curve.E2) (r curve.E2) {
	C.hc_fp2_sqr(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}

// FpSqr is field.cuh's dedicated squaring, Fp::mont_sqr (the kernels'
// squarings by default).
func FpSqr(a *fp.Element) (r fp.Element) {
	C.hc_fp_sqr(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}

// BAScratchBytes is msm_affine.cuh's ba_scratch_bytes for a G2 (g2) or
// G1 MSM of total pairs in nb buckets, the kernels' shape: the device
// memory model (cuda.AffineScratch) mirrors it.
func BAScratchBytes(g2 bool, total uint64, nb uint32) uint64 {
	return uint64(C.hc_ba_scratch_bytes(b2i(g2), C.uint64_t(total), C.uint32_t(nb)))
}

// FpInv and Fp2Inv are fixed.cuh's inverses (0 for 0), those of the
// batch-affine MSM and of the fixed-base batches' affine conversion.
func FpInv(a *fp.Element) (r fp.Element) {
	C.hc_fp_inv(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}
func Fp2Inv(a *curve.E2) (r curve.E2) {
	C.hc_fp2_inv(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}

// Fp2MulLazy is field.cuh's Fp2::mul_lazy, Karatsuba with two reductions
// (the kernels' Fp2 multiplications by default).
func Fp2MulLazy(a, b *curve.E2) (r curve.E2) {
	C.hc_fp2_mul_lazy(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// SetSortPerWindowMin sets the smallest plain MSM the emulation (MSMG1,
// MSMG2) sorts a window at a time, as the kernels do from 2^23 points
// (msm_sort_runs); 1 sorts every MSM so. It returns the previous value.
func SetSortPerWindowMin(n uint64) uint64 {
	return uint64(C.hc_set_sort_per_window_min(C.uint64_t(n)))
}

// SetAffineAccumulation makes the emulation's MSMs (MSMG1, MSMG2 and the
// table ones) sum their buckets by the batch-affine accumulation
// (msm_affine.cuh) with slots a level-pass thread, group elements a
// thread of the trick's rounds and at most invMax products inverted one
// a thread; slots 0 turns it off (the XYZZ accumulation). It returns a
// function that restores the XYZZ accumulation.
func SetAffineAccumulation(slots, group, invMax int) (restore func()) {
	C.hc_set_msm_affine(C.int(slots), C.uint32_t(slots), C.uint32_t(group), C.uint32_t(invMax))
	return func() { C.hc_set_msm_affine(0, 0, 0, 0) }
}

func MSMG1(bases []curve.G1Affine, scalars []fr.Element, c, seg, chunk int) curve.G1Jac {
	w := make([]points.G1XYZZ, (256+c-1)/c)
	C.hc_msm_g1(unsafe.Pointer(&bases[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), 0, unsafe.Pointer(&w[0]))
	return points.CombineG1(w, c)
}

func MSMG2(bases []curve.G2Affine, scalars []fr.Element, c, seg, chunk int) curve.G2Jac {
	w := make([]points.G2XYZZ, (256+c-1)/c)
	C.hc_msm_g2(unsafe.Pointer(&bases[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), 0, unsafe.Pointer(&w[0]))
	return points.CombineG2(w, c)
}

// PrecomputeG1 is msm_impl.cuh's precompute: the table of ceil(256/c) rows
// of len(bases) points, row w the bases times 2^(c·w), converted to affine
// batch points at a time.
func PrecomputeG1(bases []curve.G1Affine, c, batch int) []curve.G1Affine {
	out := make([]curve.G1Affine, (256+c-1)/c*len(bases))
	C.hc_precompute_g1(unsafe.Pointer(&bases[0]), C.size_t(len(bases)), C.int(c), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// PrecomputeG2 is PrecomputeG1 over G2.
func PrecomputeG2(bases []curve.G2Affine, c, batch int) []curve.G2Affine {
	out := make([]curve.G2Affine, (256+c-1)/c*len(bases))
	C.hc_precompute_g2(unsafe.Pointer(&bases[0]), C.size_t(len(bases)), C.int(c), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// MSMG1Table is the MSM over the first len(scalars) points of a table of
// rows of tableN points (PrecomputeG1's, same c).
func MSMG1Table(table []curve.G1Affine, tableN int, scalars []fr.Element, c, seg, chunk int) curve.G1Jac {
	var w points.G1XYZZ
	C.hc_msm_g1(unsafe.Pointer(&table[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), C.size_t(tableN), unsafe.Pointer(&w))
	return w.Jac()
}

// MSMG2Table is MSMG1Table over G2.
func MSMG2Table(table []curve.G2Affine, tableN int, scalars []fr.Element, c, seg, chunk int) curve.G2Jac {
	var w points.G2XYZZ
	C.hc_msm_g2(unsafe.Pointer(&table[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), C.size_t(tableN), unsafe.Pointer(&w))
	return w.Jac()
}

func SumG1(bases []curve.G1Affine, idx []int32, threads int) curve.G1Jac {
	var r points.G1XYZZ
	C.hc_sum_g1(unsafe.Pointer(&bases[0]), (*C.int32_t)(unsafe.Pointer(&idx[0])), C.size_t(len(idx)), C.uint32_t(threads), unsafe.Pointer(&r))
	return r.Jac()
}

func SumG2(bases []curve.G2Affine, idx []int32, threads int) curve.G2Jac {
	var r points.G2XYZZ
	C.hc_sum_g2(unsafe.Pointer(&bases[0]), (*C.int32_t)(unsafe.Pointer(&idx[0])), C.size_t(len(idx)), C.uint32_t(threads), unsafe.Pointer(&r))
	return r.Jac()
}

func logn(d *fft.Domain) int { return bits.TrailingZeros64(d.Cardinality) }

// NTTLayoutExcess is the most shared-memory wavefronts a warp access of
// the lowest NTT pass of 2^logn points takes beyond what 32-byte elements
// must (0: none), or 1000 + a pass whose unit-twiddle branch splits a
// warp.
func NTTLayoutExcess(logn int) int { return int(C.hc_ntt_layout_excess(C.int(logn))) }

func NTT(x []fr.Element, d *fft.Domain, inverse, dif, coset bool) {
	dom := points.DomainWords(d)
	C.hc_ntt(u64(unsafe.Pointer(&x[0])), C.int(logn(d)), u64(unsafe.Pointer(&dom[0])), b2i(inverse), b2i(dif), b2i(coset))
}

func ComputeH(a, b, c []fr.Element, d *fft.Domain) {
	dom := points.DomainWords(d)
	C.hc_compute_h(u64(unsafe.Pointer(&a[0])), u64(unsafe.Pointer(&b[0])), u64(unsafe.Pointer(&c[0])), C.int(logn(d)), u64(unsafe.Pointer(&dom[0])))
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// FixedG1 is fixed.cu's fixed-base multiplication of the G1 generator
// (table from points.FixedTableG1(c)), converting batch points at a time.
func FixedG1(table []curve.G1Affine, c int, scalars []fr.Element, batch int) []curve.G1Affine {
	out := make([]curve.G1Affine, len(scalars))
	C.hc_fixed_g1(unsafe.Pointer(&table[0]), C.size_t(len(table)), C.int(c), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// FixedG2 is FixedG1 over G2.
func FixedG2(table []curve.G2Affine, c int, scalars []fr.Element, batch int) []curve.G2Affine {
	out := make([]curve.G2Affine, len(scalars))
	C.hc_fixed_g2(unsafe.Pointer(&table[0]), C.size_t(len(table)), C.int(c), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// The emulation built with the plain arithmetic (variants.cpp:
// -DPL_PLAIN_ARITHMETIC, the kernels' A/B build), same contracts as MSMG1,
// MSMG2, PrecomputeG1 and PrecomputeG2 (which have the default).

func VariantsMSMG1(bases []curve.G1Affine, scalars []fr.Element, c, seg, chunk int) curve.G1Jac {
	w := make([]points.G1XYZZ, (256+c-1)/c)
	C.hc_variants_msm_g1(unsafe.Pointer(&bases[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), 0, unsafe.Pointer(&w[0]))
	return points.CombineG1(w, c)
}

func VariantsMSMG2(bases []curve.G2Affine, scalars []fr.Element, c, seg, chunk int) curve.G2Jac {
	w := make([]points.G2XYZZ, (256+c-1)/c)
	C.hc_variants_msm_g2(unsafe.Pointer(&bases[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), 0, unsafe.Pointer(&w[0]))
	return points.CombineG2(w, c)
}

func VariantsPrecomputeG1(bases []curve.G1Affine, c, batch int) []curve.G1Affine {
	out := make([]curve.G1Affine, (256+c-1)/c*len(bases))
	C.hc_variants_precompute_g1(unsafe.Pointer(&bases[0]), C.size_t(len(bases)), C.int(c), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

func VariantsPrecomputeG2(bases []curve.G2Affine, c, batch int) []curve.G2Affine {
	out := make([]curve.G2Affine, (256+c-1)/c*len(bases))
	C.hc_variants_precompute_g2(unsafe.Pointer(&bases[0]), C.size_t(len(bases)), C.int(c), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}
