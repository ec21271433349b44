//go:build cudahost

package hostcheck

import (
	"math/big"
	"math/rand/v2"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// randFp returns a random element (its raw Montgomery limbs are < p).
func randFp(r *rand.Rand) fp.Element {
	var b [48]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	var e fp.Element
	e.SetBytes(b[:]) // reduced mod p
	return e
}

// fpSqrEdges are raw limb patterns below p where a squaring's carries and
// its doubled cross products are stressed: fpEdges' (0, 1, 2^64-1, 2^320,
// p-1, p-2, (p-1)/2) and R mod p (Montgomery one), p-3, every 32-bit limb
// 0xffffffff below p (the top limb p's minus one, and 2^380-1), bit 31
// set in every 32-bit limb but the top one, 2^32-1, 2^352 and alternating limbs.
func fpSqrEdges() []fp.Element {
	q := fp.Modulus()
	top := new(big.Int).Rsh(q, 352) // p's top 32-bit limb
	ones352 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 352), big.NewInt(1))
	belowP := new(big.Int).Add(new(big.Int).Lsh(new(big.Int).Sub(top, big.NewInt(1)), 352), ones352)
	ones380 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 380), big.NewInt(1))
	bit31, alt := new(big.Int), new(big.Int)
	for i := 0; i < 11; i++ {
		bit31.SetBit(bit31, 32*i+31, 1)
		if i%2 == 0 {
			alt.Or(alt, new(big.Int).Lsh(big.NewInt(0xffffffff), uint(32*i)))
		}
	}
	bit31.SetBit(bit31, 32*11+28, 1) // below p: the top limb 0x10000000
	out := fpEdges()
	out = append(out, fp.Element(rawLimbs6(q, -3)), fp.One())
	for _, v := range []*big.Int{belowP, ones380, bit31, alt, big.NewInt(0xffffffff), new(big.Int).Lsh(big.NewInt(1), 352)} {
		var l [6]uint64
		limbs(v, l[:])
		out = append(out, fp.Element(l))
	}
	return out
}

// isReducedFp reports whether e's raw limbs are below p.
func isReducedFp(e *fp.Element) bool {
	var b big.Int
	for i := 5; i >= 0; i-- {
		b.Lsh(&b, 64).Or(&b, new(big.Int).SetUint64(e[i]))
	}
	return b.Cmp(fp.Modulus()) < 0
}

// TestFpSqrDedicatedEqualsGnarkSquare checks field.cuh's Fp::mont_sqr (the
// kernels' squarings by default) against gnark-crypto's
// Square on the edges, random elements and squares of random elements.
func TestFpSqrDedicatedEqualsGnarkSquare(t *testing.T) {
	r := rng(t)
	cases := fpSqrEdges()
	for _, e := range cases {
		if !isReducedFp(&e) {
			t.Fatalf("edge %x is not below p", e)
		}
	}
	for i := 0; i < 100000; i++ {
		a := randFp(r)
		cases = append(cases, a)
		if i%4 == 0 {
			var s fp.Element
			cases = append(cases, *s.Square(&a))
		}
	}
	for _, a := range cases {
		var w fp.Element
		w.Square(&a)
		if got := FpSqr(&a); got != w {
			t.Fatalf("mont_sqr of raw %x: got %x, want %x", a, got, w)
		}
	}
	t.Logf("%d squarings", len(cases))
}

// TestFp2MulLazyEqualsGnarkMul checks field.cuh's Fp2::mul_lazy (the
// kernels' Fp2 multiplications by default) against gnark-crypto's
// E2.Mul: every pair of operands whose four components are edges, random
// operands, equal operands and operands with a zero component.
func TestFp2MulLazyEqualsGnarkMul(t *testing.T) {
	r := rng(t)
	edges := fpSqrEdges()
	n := 0
	check := func(a, b *bls.E2) {
		t.Helper()
		n++
		var w bls.E2
		w.Mul(a, b)
		if got := Fp2MulLazy(a, b); got != w {
			t.Fatalf("mul_lazy of raw %x and %x: got %x, want %x", *a, *b, got, w)
		}
	}
	for i, x0 := range edges {
		for _, x1 := range edges {
			a := bls.E2{A0: x0, A1: x1}
			check(&a, &a)
			for k := 0; k < 8; k++ { // edge operands with a random partner pattern
				b := bls.E2{A0: edges[(i+k)%len(edges)], A1: edges[(i*7+k*3)%len(edges)]}
				check(&a, &b)
			}
		}
	}
	var zero fp.Element
	for i := 0; i < 50000; i++ {
		a := bls.E2{A0: randFp(r), A1: randFp(r)}
		b := bls.E2{A0: randFp(r), A1: randFp(r)}
		switch i % 8 {
		case 1:
			b = a
		case 2:
			a.A0 = zero
		case 3:
			a.A1 = zero
		case 4:
			b.A0 = zero
		case 5:
			b.A1 = zero
		case 6:
			a.A1, b.A1 = zero, zero
		}
		check(&a, &b)
	}
	t.Logf("%d multiplications", n)
}

// TestMSMWithArithmeticVariants runs the MSM emulation built with the
// other arithmetic, the plain one (-DPL_PLAIN_ARITHMETIC, variants.cpp), against
// gnark-crypto (TestMSM* check the default, mont_sqr and mul_lazy):
// whole MSMs (XYZZ mixed and full additions, doublings, the window
// reduction) and precomputed tables (doublings and batch inversions,
// ~380 squarings each).
func TestMSMWithArithmeticVariants(t *testing.T) {
	r := rng(t)
	for _, tc := range []struct{ n, c, seg, chunk int }{
		{37, 8, 4, 4}, {1000, 9, 3, 8}, {300, 13, 2, 64},
	} {
		g1, g2, s := specialInputs(r, max(tc.n, 32))
		g1, g2, s = g1[:tc.n], g2[:tc.n], s[:tc.n]
		var want bls.G1Jac
		if _, err := want.MultiExp(g1, s, curve.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		if got := VariantsMSMG1(g1, s, tc.c, tc.seg, tc.chunk); !got.Equal(&want) {
			t.Fatalf("g1 msm n=%d c=%d differs", tc.n, tc.c)
		}
		var want2 bls.G2Jac
		if _, err := want2.MultiExp(g2, s, curve.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		if got := VariantsMSMG2(g2, s, tc.c, tc.seg, tc.chunk); !got.Equal(&want2) {
			t.Fatalf("g2 msm n=%d c=%d differs", tc.n, tc.c)
		}
	}
	g1, g2, _ := specialInputs(r, 40)
	const c, batch = 9, 7
	t1 := VariantsPrecomputeG1(g1, c, batch)
	t2 := VariantsPrecomputeG2(g2, c, batch)
	rows := (256 + c - 1) / c
	for _, w := range []int{1, 2, rows - 1} {
		k := new(big.Int).Lsh(big.NewInt(1), uint(c*w))
		for i := range g1 {
			var want1 bls.G1Affine
			want1.ScalarMultiplication(&g1[i], k)
			if !t1[w*len(g1)+i].Equal(&want1) {
				t.Fatalf("g1 table: row %d point %d is not 2^%d times the base", w, i, c*w)
			}
			var want2 bls.G2Affine
			want2.ScalarMultiplication(&g2[i], k)
			if !t2[w*len(g2)+i].Equal(&want2) {
				t.Fatalf("g2 table: row %d point %d is not 2^%d times the base", w, i, c*w)
			}
		}
	}
}
