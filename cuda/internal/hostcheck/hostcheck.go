//go:build cudahost

// Package hostcheck runs the CUDA kernels' arithmetic and indexing on the
// host (build tag cudahost), so the CPU tests can check them against
// gnark-crypto without a GPU: go test -tags cudahost ./cuda/internal/hostcheck
package hostcheck

/*
#cgo CXXFLAGS: -O2 -std=c++17 -I${SRCDIR}/../.. -I${SRCDIR}/../../csrc
#cgo CFLAGS: -I${SRCDIR}/../..
#include <stdint.h>
#include <stddef.h>
#include "api.h"
void hc_fr_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_add(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_sub(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_sqr(int curve, uint64_t* o, const uint64_t* a);
void hc_fr_lazy(int curve, int op, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fr_vec(int curve, int op, uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n, int constant);
void hc_fp_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fp_mul_sub_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b, const uint64_t* c, const uint64_t* d);
void hc_fp64_mul(uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fp64_squarings(uint64_t* o, const uint64_t* a, int iters);
void hc_fp2_mul(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_fp2_sqr(int curve, uint64_t* o, const uint64_t* a);
void hc_fp_sqr(int curve, uint64_t* o, const uint64_t* a);
void hc_fp_inv(int curve, uint64_t* o, const uint64_t* a);
int hc_constant(int curve, int what, uint64_t* o);
int hc_on_curve(int curve, int g2, const uint64_t* p);
uint64_t hc_ba_scratch_bytes(int curve, int g2, uint64_t total, uint32_t nb);
void hc_fp2_inv(int curve, uint64_t* o, const uint64_t* a);
void hc_fp2_mul_lazy(int curve, uint64_t* o, const uint64_t* a, const uint64_t* b);
void hc_variants_msm(int curve, int g2, const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg, int chunk, size_t table_n, void* out);
void hc_variants_precompute(int curve, int g2, const void* bases, size_t n, int c, size_t batch, void* out);
uint64_t hc_set_sort_per_window_min(uint64_t n);
int hc_set_msm_affine(int on, uint32_t slots, uint32_t group, uint32_t inv_max);
void hc_msm(int curve, int g2, const void* bases, const uint64_t* scalars, size_t n, int mont, int c, int seg, int chunk, size_t table_n, void* out);
void hc_precompute(int curve, int g2, const void* bases, size_t n, int c, size_t batch, void* out);
void hc_sum(int curve, int g2, const void* bases, const int32_t* idx, size_t count, uint32_t threads, void* out);
void hc_ntt(int curve, uint64_t* data, int L, const uint64_t* dom, int inverse, int dif, int coset);
int hc_ntt_layout_excess(int L);
void hc_fixed(int curve, int g2, const void* table, size_t table_len, int c, const uint64_t* scalars, size_t n, size_t batch, void* out);
void hc_compute_h(int curve, uint64_t* a, uint64_t* b, uint64_t* c, int L, const uint64_t* dom);
*/
import "C"

import (
	"fmt"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfp "github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfp "github.com/consensys/gnark-crypto/ecc/bn254/fp"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/cuda/internal/points"
)

func u64(p unsafe.Pointer) *C.uint64_t { return (*C.uint64_t)(p) }

// The curves' field elements, whose memory the kernels' types share:
// Fr, Fp and Fp2 of BLS12-381 and of BN254. A function over one of them
// runs the arithmetic of its curve (curveOf).
type (
	FrElement interface{ blsfr.Element | bnfr.Element }
	FpElement interface{ blsfp.Element | bnfp.Element }
	E2Element interface{ bls.E2 | bn254.E2 }
)

// curveOf is api.h's id of the curve whose element or point x points to.
func curveOf(x any) C.int {
	switch x.(type) {
	case *blsfr.Element, *blsfp.Element, *bls.E2, *bls.G1Affine, *bls.G2Affine:
		return C.PL_BLS12_381
	case *bnfr.Element, *bnfp.Element, *bn254.E2, *bn254.G1Affine, *bn254.G2Affine:
		return C.PL_BN254
	}
	panic(fmt.Sprintf("hostcheck: %T is no curve's", x))
}

func FrMul[F FrElement](a, b *F) (r F) {
	C.hc_fr_mul(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}
func FrAdd[F FrElement](a, b *F) (r F) {
	C.hc_fr_add(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}
func FrSub[F FrElement](a, b *F) (r F) {
	C.hc_fr_sub(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// FrSqr is Fr's squaring as the kernels compute it (Field::sqr).
func FrSqr[F FrElement](a *F) (r F) {
	C.hc_fr_sqr(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
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

// FrLazy runs one of field.cuh's [0, 2r) operations (the NTT passes') of
// the curve's Fr on raw 4-limb values: a and b are integers, not
// elements in range.
func FrLazy(c cuda.Curve, op int, a, b *[4]uint64) (r [4]uint64) {
	C.hc_fr_lazy(C.int(c), C.int(op), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// Vector operation codes (api.h's PL_VEC_*).
const (
	VecMul = 1
	VecAdd = 2
	VecSub = 3
)

// FrVec runs vec.cu's element function over a and b into a new vector.
func FrVec[F FrElement](op int, a, b []F) []F {
	dst := make([]F, len(a))
	if len(a) > 0 {
		C.hc_fr_vec(curveOf(&a[0]), C.int(op), u64(unsafe.Pointer(&dst[0])), u64(unsafe.Pointer(&a[0])), u64(unsafe.Pointer(&b[0])), C.size_t(len(a)), 0)
	}
	return dst
}

// FrVecConst is FrVec with the constant c as second operand.
func FrVecConst[F FrElement](op int, a []F, c F) []F {
	dst := make([]F, len(a))
	if len(a) > 0 {
		C.hc_fr_vec(curveOf(&c), C.int(op), u64(unsafe.Pointer(&dst[0])), u64(unsafe.Pointer(&a[0])), u64(unsafe.Pointer(&c)), C.size_t(len(a)), 1)
	}
	return dst
}

func FpMul[E FpElement](a, b *E) (r E) {
	C.hc_fp_mul(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// FpMulSubMul is field.cuh's a b - c d with one reduction (mul_sub_mul).
func FpMulSubMul[E FpElement](a, b, c, d *E) (r E) {
	C.hc_fp_mul_sub_mul(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)), u64(unsafe.Pointer(c)), u64(unsafe.Pointer(d)))
	return
}

// Fp64Mul is fp64.cuh's multiplication (BLS12-381's Fp), with a and b
// converted to its representation and the product back.
func Fp64Mul(a, b *blsfp.Element) (r blsfp.Element) {
	C.hc_fp64_mul(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// Fp64Squarings squares a iters times in fp64.cuh's representation.
func Fp64Squarings(a *blsfp.Element, iters int) (r blsfp.Element) {
	C.hc_fp64_squarings(u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), C.int(iters))
	return
}

func Fp2Mul[E E2Element](a, b *E) (r E) {
	C.hc_fp2_mul(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}
func Fp2Sqr[E E2Element](a *E) (r E) {
	C.hc_fp2_sqr(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}

// FpSqr is field.cuh's dedicated squaring, Fp::mont_sqr (the kernels'
// squarings by default).
func FpSqr[E FpElement](a *E) (r E) {
	C.hc_fp_sqr(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}

// Constant codes (hostcheck.cpp's hc_constant).
const (
	ConstP = iota
	ConstPR
	ConstPR2
	ConstR
	ConstRR
	ConstRR2
	ConstB1
	ConstB2
)

// Constant is one of the curve's constants in curves.cuh (ConstP...: the
// moduli, R and R^2 mod each, G1's and G2's b), as 64-bit limbs.
func Constant(c cuda.Curve, what int) []uint64 {
	var buf [12]uint64
	n := C.hc_constant(C.int(c), C.int(what), u64(unsafe.Pointer(&buf[0])))
	return buf[:n]
}

// OnCurve is curve.cuh's on_curve with the curve's b (curves.cuh): p is
// a G1 or G2 affine point of BLS12-381 or BN254.
func OnCurve[A bls.G1Affine | bls.G2Affine | bn254.G1Affine | bn254.G2Affine](p *A) bool {
	var g2 C.int
	switch any(p).(type) {
	case *bls.G2Affine, *bn254.G2Affine:
		g2 = 1
	}
	return C.hc_on_curve(curveOf(p), g2, u64(unsafe.Pointer(p))) != 0
}

// FpInv and Fp2Inv are fixed.cuh's inverses (0 for 0), those of the
// batch-affine MSM and of the fixed-base batches' affine conversion.
func FpInv[E FpElement](a *E) (r E) {
	C.hc_fp_inv(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}
func Fp2Inv[E E2Element](a *E) (r E) {
	C.hc_fp2_inv(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)))
	return
}

// Fp2MulLazy is field.cuh's Fp2::mul_lazy, Karatsuba with two reductions
// (the kernels' Fp2 multiplications by default).
func Fp2MulLazy[E E2Element](a, b *E) (r E) {
	C.hc_fp2_mul_lazy(curveOf(a), u64(unsafe.Pointer(&r)), u64(unsafe.Pointer(a)), u64(unsafe.Pointer(b)))
	return
}

// SetSortPerWindowMin sets the smallest plain MSM the emulation
// (Group.MSM) sorts a window at a time, as the kernels do from 2^23
// points (msm_sort_runs); 1 sorts every MSM so. It returns the previous
// value.
func SetSortPerWindowMin(n uint64) uint64 {
	return uint64(C.hc_set_sort_per_window_min(C.uint64_t(n)))
}

// SetAffineAccumulation makes the emulation's MSMs (Group.MSM and
// MSMTable) sum their buckets by the batch-affine accumulation
// (msm_affine.cuh) with slots a level-pass thread, group elements a
// thread of the trick's rounds and at most invMax products inverted one
// a thread; slots 0 turns it off (the XYZZ accumulation). It returns a
// function that restores the XYZZ accumulation.
func SetAffineAccumulation(slots, group, invMax int) (restore func()) {
	C.hc_set_msm_affine(C.int(slots), C.uint32_t(slots), C.uint32_t(group), C.uint32_t(invMax))
	return func() { C.hc_set_msm_affine(0, 0, 0, 0) }
}

// Group is one group of a curve as the emulation runs its kernels: F the
// curve's scalars, A and J the group's affine and Jacobian points.
type Group[F, A, J any] struct {
	points.Group[A, J]
}

// The groups of the curves the kernels are built for.
var (
	BLS12381G1 = Group[blsfr.Element, bls.G1Affine, bls.G1Jac]{points.BLS12381G1}
	BLS12381G2 = Group[blsfr.Element, bls.G2Affine, bls.G2Jac]{points.BLS12381G2}
	BN254G1    = Group[bnfr.Element, bn254.G1Affine, bn254.G1Jac]{points.BN254G1}
	BN254G2    = Group[bnfr.Element, bn254.G2Affine, bn254.G2Jac]{points.BN254G2}
)

func (g Group[F, A, J]) ids() (C.int, C.int) {
	if g.Name() == "g2" {
		return C.int(g.Curve()), 1
	}
	return C.int(g.Curve()), 0
}

// sums is room for n of the device's accumulators.
func (g Group[F, A, J]) sums(n int) []uint64 { return make([]uint64, n*g.XYZZBytes()/8) }

// MSM is the emulated MSM of scalars (Montgomery form) over bases with
// window c, segments of at most seg points (0: the kernels' cap) and the
// window reduction's chunks of chunk buckets (0: the kernels').
func (g Group[F, A, J]) MSM(bases []A, scalars []F, c, seg, chunk int) J {
	w := g.sums((256 + c - 1) / c)
	curve, g2 := g.ids()
	C.hc_msm(curve, g2, unsafe.Pointer(&bases[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), 0, unsafe.Pointer(&w[0]))
	return g.Combine(w, c)
}

// Precompute is msm_impl.cuh's precompute: the table of ceil(256/c) rows
// of len(bases) points, row w the bases times 2^(c·w), converted to affine
// batch points at a time.
func (g Group[F, A, J]) Precompute(bases []A, c, batch int) []A {
	out := make([]A, (256+c-1)/c*len(bases))
	curve, g2 := g.ids()
	C.hc_precompute(curve, g2, unsafe.Pointer(&bases[0]), C.size_t(len(bases)), C.int(c), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// MSMTable is the MSM over the first len(scalars) points of a table of
// rows of tableN points (Precompute's, same c).
func (g Group[F, A, J]) MSMTable(table []A, tableN int, scalars []F, c, seg, chunk int) J {
	w := g.sums(1)
	curve, g2 := g.ids()
	C.hc_msm(curve, g2, unsafe.Pointer(&table[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), C.size_t(tableN), unsafe.Pointer(&w[0]))
	return g.Jac(w)
}

// Sum is the batch addition of bases[idx[i]] with threads threads.
func (g Group[F, A, J]) Sum(bases []A, idx []int32, threads int) J {
	w := g.sums(1)
	curve, g2 := g.ids()
	C.hc_sum(curve, g2, unsafe.Pointer(&bases[0]), (*C.int32_t)(unsafe.Pointer(&idx[0])), C.size_t(len(idx)), C.uint32_t(threads), unsafe.Pointer(&w[0]))
	return g.Jac(w)
}

// Fixed is fixed.cu's fixed-base multiplication of the group's generator
// (table from FixedTable(c)), converting batch points at a time.
func (g Group[F, A, J]) Fixed(table []A, c int, scalars []F, batch int) []A {
	out := make([]A, len(scalars))
	curve, g2 := g.ids()
	C.hc_fixed(curve, g2, unsafe.Pointer(&table[0]), C.size_t(len(table)), C.int(c), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// BAScratchBytes is msm_affine.cuh's ba_scratch_bytes for an MSM of the
// group of total pairs in nb buckets, the kernels' shape: the device
// memory model (cuda.AffineScratch) mirrors it.
func (g Group[F, A, J]) BAScratchBytes(total uint64, nb uint32) uint64 {
	curve, g2 := g.ids()
	return uint64(C.hc_ba_scratch_bytes(curve, g2, C.uint64_t(total), C.uint32_t(nb)))
}

// VariantsMSM and VariantsPrecompute are MSM and Precompute emulated with
// the plain arithmetic (variants.cpp: -DPL_PLAIN_ARITHMETIC, the
// kernels' A/B build).
func (g Group[F, A, J]) VariantsMSM(bases []A, scalars []F, c, seg, chunk int) J {
	w := g.sums((256 + c - 1) / c)
	curve, g2 := g.ids()
	C.hc_variants_msm(curve, g2, unsafe.Pointer(&bases[0]), u64(unsafe.Pointer(&scalars[0])), C.size_t(len(scalars)), 1, C.int(c), C.int(seg), C.int(chunk), 0, unsafe.Pointer(&w[0]))
	return g.Combine(w, c)
}

func (g Group[F, A, J]) VariantsPrecompute(bases []A, c, batch int) []A {
	out := make([]A, (256+c-1)/c*len(bases))
	curve, g2 := g.ids()
	C.hc_variants_precompute(curve, g2, unsafe.Pointer(&bases[0]), C.size_t(len(bases)), C.int(c), C.size_t(batch), unsafe.Pointer(&out[0]))
	return out
}

// Field is one curve's scalar field as the emulation runs its NTT
// kernels: F its elements, D gnark-crypto's fft.Domain.
type Field[F, D any] struct {
	points.Scalars[F, D]
}

// The scalar fields of the curves the kernels are built for.
var (
	BLS12381Fr = Field[blsfr.Element, blsfft.Domain]{points.BLS12381Fr}
	BN254Fr    = Field[bnfr.Element, bnfft.Domain]{points.BN254Fr}
)

// NTTLayoutExcess is the most shared-memory wavefronts a warp access of
// the lowest NTT pass of 2^logn points takes beyond what 32-byte elements
// must (0: none), or 1000 + a pass whose unit-twiddle branch splits a
// warp.
func NTTLayoutExcess(logn int) int { return int(C.hc_ntt_layout_excess(C.int(logn))) }

// NTT is ntt.cu's transform of x over domain d (2^logn elements),
// gnark's domain.FFT or FFTInverse semantics.
func (f Field[F, D]) NTT(x []F, d *D, logn int, inverse, dif, coset bool) {
	dom := f.DomainWords(d)
	C.hc_ntt(C.int(f.Curve()), u64(unsafe.Pointer(&x[0])), C.int(logn), u64(unsafe.Pointer(&dom[0])), b2i(inverse), b2i(dif), b2i(coset))
}

// ComputeH is ntt.cu's fused Groth16 H step on a, b, c over d (2^logn
// each).
func (f Field[F, D]) ComputeH(a, b, c []F, d *D, logn int) {
	dom := f.DomainWords(d)
	C.hc_compute_h(C.int(f.Curve()), u64(unsafe.Pointer(&a[0])), u64(unsafe.Pointer(&b[0])), u64(unsafe.Pointer(&c[0])), C.int(logn), u64(unsafe.Pointer(&dom[0])))
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
