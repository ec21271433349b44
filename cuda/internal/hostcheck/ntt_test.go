//go:build cudahost

package hostcheck

import (
	"math/bits"
	"slices"
	"testing"

	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"

	"github.com/prooflane/prooflane/internal/ref"
)

// The scalar field's kernels (ntt.cuh's passes as the emulation runs
// them, vec.cuh, the fused H step) of each curve against gnark-crypto's
// fft and field.

func TestNTT(t *testing.T) {
	forCurves(t, testNTT[blsfr.Element, blsfft.Domain], testNTT[bnfr.Element, bnfft.Domain])
}

func testNTT[F FrElement, D any, PF elem[F]](t *testing.T) {
	f := fieldOf[F, D]()
	r := rng(t)
	for _, logn := range []int{1, 2, 5, 9, 10, 11, 13, 16} {
		n := 1 << logn
		d := f.newDomain(uint64(n))
		for _, inverse := range []bool{false, true} {
			for _, dif := range []bool{false, true} {
				for _, coset := range []bool{false, true} {
					x := ref.Scalars[F, PF](r, n)
					want := f.fft.Transform(x, d, inverse, dif, coset)
					f.NTT(x, d, logn, inverse, dif, coset)
					for i := range x {
						if !PF(&x[i]).Equal(&want[i]) {
							t.Fatalf("logn=%d inverse=%v dif=%v coset=%v: differs at %d", logn, inverse, dif, coset, i)
						}
					}
				}
			}
		}
	}
}

// TestNTTLayout checks, for every size the kernels run, that the unit-
// twiddle branch is the same across each warp and that no tile access of
// the lowest pass has more shared-memory bank conflicts than 32-byte
// elements must (ntt.cuh's ntt_slot; the upper passes' stage-0 step takes
// twice that, which costs less than swizzling them did). Either failing
// leaves the NTT correct and slower, which TestNTT cannot see. From 2^6
// up: below, a pass is one block of under 16 threads. The layout is the
// same on both curves (32-byte elements).
func TestNTTLayout(t *testing.T) {
	for logn := 6; logn <= 28; logn++ {
		if e := NTTLayoutExcess(logn); e != 0 {
			t.Errorf("logn=%d: %d (wavefronts of the lowest pass beyond the fewest; 1000+: the pass whose warps split the unit branch)", logn, e)
		}
	}
}

// TestVectorOps runs vec.cu's element function on random inputs and the
// field's edges (raw limb patterns included) against gnark-crypto.
func TestVectorOps(t *testing.T) {
	forCurves(t, testVectorOps[blsfr.Element], testVectorOps[bnfr.Element])
}

func testVectorOps[F FrElement, PF elem[F]](t *testing.T) {
	r := rng(t)
	es := edges[F, PF]()
	var a, b []F
	for _, x := range es {
		for _, y := range es {
			a, b = append(a, x), append(b, y)
		}
	}
	a, b = append(a, ref.Scalars[F, PF](r, 1000)...), append(b, ref.Scalars[F, PF](r, 1000)...)
	ops := []struct {
		name string
		op   int
		want func(z, x, y *F)
	}{
		{"mul", VecMul, func(z, x, y *F) { PF(z).Mul(x, y) }},
		{"add", VecAdd, func(z, x, y *F) { PF(z).Add(x, y) }},
		{"sub", VecSub, func(z, x, y *F) { PF(z).Sub(x, y) }},
	}
	for _, o := range ops {
		got := FrVec(o.op, a, b)
		for i := range a {
			if i < len(es)*len(es) && (!isReduced[F, PF](&a[i]) || !isReduced[F, PF](&b[i])) {
				continue // gnark-crypto's add and sub assume reduced inputs
			}
			var w F
			o.want(&w, &a[i], &b[i])
			if !PF(&got[i]).Equal(&w) {
				t.Fatalf("%s of raw %x and %x differs", o.name, a[i], b[i])
			}
		}
		if o.op == VecSub {
			continue // pl_fr_vec_const has no subtraction
		}
		for _, c := range append(es, ref.Scalars[F, PF](r, 1)...) {
			if !isReduced[F, PF](&c) {
				continue
			}
			got := FrVecConst(o.op, a, c)
			for i := range a {
				if !isReduced[F, PF](&a[i]) {
					continue
				}
				var w F
				o.want(&w, &a[i], &c)
				if !PF(&got[i]).Equal(&w) {
					t.Fatalf("%s of raw %x and constant %x differs", o.name, a[i], c)
				}
			}
		}
	}
}

func TestComputeH(t *testing.T) {
	forCurves(t, testComputeH[blsfr.Element, blsfft.Domain], testComputeH[bnfr.Element, bnfft.Domain])
}

func testComputeH[F FrElement, D any, PF elem[F]](t *testing.T) {
	f := fieldOf[F, D]()
	r := rng(t)
	for _, logn := range []int{1, 4, 10, 14} {
		n := 1 << logn
		d := f.newDomain(uint64(n))
		a, b, c := ref.Scalars[F, PF](r, n), ref.Scalars[F, PF](r, n), ref.Scalars[F, PF](r, n)
		// gnark pads a shorter witness with zeros
		for i := n - n/3; i < n; i++ {
			PF(&a[i]).SetZero()
			PF(&b[i]).SetZero()
			PF(&c[i]).SetZero()
		}
		want := slices.Clone(a)
		ref.HOf[F, PF](f.fft, want, slices.Clone(b), slices.Clone(c), d)
		f.ComputeH(a, b, c, d, bits.TrailingZeros(uint(n)))
		for i := range a {
			if !PF(&a[i]).Equal(&want[i]) {
				t.Fatalf("logn=%d: differs at %d", logn, i)
			}
		}
	}
}
