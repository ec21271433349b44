//go:build cudahost

package hostcheck

import (
	"math/big"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfp "github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfp "github.com/consensys/gnark-crypto/ecc/bn254/fp"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/prooflane/prooflane/cuda"
)

// The kernels' field arithmetic (field.cuh over curves.cuh's parameters)
// against gnark-crypto's, for each curve's Fr, Fp and Fp2.

func TestField(t *testing.T) {
	forCurves(t, testField[blsfr.Element, blsfp.Element, bls.E2], testField[bnfr.Element, bnfp.Element, bn254.E2])
}

func testField[Fr FrElement, Fp FpElement, E2 E2Element, PFr elem[Fr], PFp elem[Fp], PE2 ext[E2]](t *testing.T) {
	for i := 0; i < 2000; i++ {
		var a, b Fr
		PFr(&a).SetRandom()
		PFr(&b).SetRandom()
		if i == 0 {
			PFr(&a).SetInt64(-1)
			PFr(&b).SetInt64(-1)
		}
		var w Fr
		if got := FrMul(&a, &b); !PFr(&got).Equal(PFr(&w).Mul(&a, &b)) {
			t.Fatalf("fr mul")
		}
		if got := FrAdd(&a, &b); !PFr(&got).Equal(PFr(&w).Add(&a, &b)) {
			t.Fatalf("fr add")
		}
		if got := FrSub(&a, &b); !PFr(&got).Equal(PFr(&w).Sub(&a, &b)) {
			t.Fatalf("fr sub")
		}
		if got := FrSqr(&a); !PFr(&got).Equal(PFr(&w).Square(&a)) {
			t.Fatalf("fr sqr")
		}
		var x, y, z Fp
		PFp(&x).SetRandom()
		PFp(&y).SetRandom()
		if i == 0 {
			PFp(&x).SetInt64(-1)
			PFp(&y).SetInt64(-1)
		}
		if got := FpMul(&x, &y); !PFp(&got).Equal(PFp(&z).Mul(&x, &y)) {
			t.Fatalf("fp mul")
		}
		if got := FpInv(&x); !PFp(&got).Equal(PFp(&z).Inverse(&x)) {
			t.Fatalf("fp inverse of %x", x)
		}
		var e, f, g E2
		PE2(&e).SetRandom()
		PE2(&f).SetRandom()
		if got := Fp2Mul(&e, &f); !PE2(&got).Equal(PE2(&g).Mul(&e, &f)) {
			t.Fatalf("fp2 mul")
		}
		if got := Fp2Sqr(&e); !PE2(&got).Equal(PE2(&g).Square(&e)) {
			t.Fatalf("fp2 sqr")
		}
		if got := Fp2Inv(&e); !PE2(&got).Equal(PE2(&g).Inverse(&e)) {
			t.Fatalf("fp2 inverse")
		}
	}
	// the inverses of 0 and 1
	var zero, one Fp
	PFp(&one).SetOne()
	if got := FpInv(&zero); !PFp(&got).IsZero() {
		t.Fatalf("fp inverse of 0: %x, want 0", got)
	}
	if got := FpInv(&one); !PFp(&got).IsOne() {
		t.Fatalf("fp inverse of 1: %x, want 1", got)
	}
}

// TestFieldEdges multiplies every pair of raw Montgomery limb patterns at
// the edges (edges: 0, 1, p-1, p-2, (p-1)/2, 2^64-1 in the low limb,
// high limb only), and squares them, where the multiplication's carry
// chains and its final subtraction are stressed, and inverts each Fp
// pattern (the binary Euclid's first and last steps).
func TestFieldEdges(t *testing.T) {
	forCurves(t, testFieldEdges[blsfr.Element, blsfp.Element], testFieldEdges[bnfr.Element, bnfp.Element])
}

func testFieldEdges[Fr FrElement, Fp FpElement, PFr elem[Fr], PFp elem[Fp]](t *testing.T) {
	frs := edges[Fr, PFr]()
	for _, a := range frs {
		for _, b := range frs {
			var w Fr
			if got := FrMul(&a, &b); !PFr(&got).Equal(PFr(&w).Mul(&a, &b)) {
				t.Fatalf("fr mul of raw %x and %x", a, b)
			}
		}
		var w Fr
		if got := FrSqr(&a); !PFr(&got).Equal(PFr(&w).Square(&a)) {
			t.Fatalf("fr sqr of raw %x", a)
		}
	}
	fps := edges[Fp, PFp]()
	for _, a := range fps {
		for _, b := range fps {
			var w Fp
			if got := FpMul(&a, &b); !PFp(&got).Equal(PFp(&w).Mul(&a, &b)) {
				t.Fatalf("fp mul of raw %x and %x", a, b)
			}
		}
		var w Fp
		if got := FpInv(&a); !PFp(&got).Equal(PFp(&w).Inverse(&a)) {
			t.Fatalf("fp inverse of raw %x", a)
		}
	}
}

// TestFrLazyOpsStayUnderTwiceR checks the NTT passes' [0, 2r) arithmetic
// (field.cuh's add_2p, sub_2p, mont_mul_2p, reduced) against big-integer
// arithmetic mod r: each result is the right residue and under 2r (the
// reduction under r), on the ends of the range (0, 1, 2, r-1, r, r+1,
// 2r-3, 2r-2, 2r-1, 2^bits(r)) and random values under 2r; the
// multiplication's first operand, a twiddle, under r; the division by
// 2^k (the inverse NTT's 1/n) for every k the NTT's last pass uses.
func TestFrLazyOpsStayUnderTwiceR(t *testing.T) {
	forCurves(t, func(t *testing.T) { testFrLazy[blsfr.Element](t, cuda.BLS12381) },
		func(t *testing.T) { testFrLazy[bnfr.Element](t, cuda.BN254) })
}

func testFrLazy[Fr any, PFr elem[Fr]](t *testing.T, c cuda.Curve) {
	q := modulus[Fr, PFr]()
	q2 := new(big.Int).Lsh(q, 1)
	src := rng(t)
	random := func(bound *big.Int) *big.Int {
		var l [4]uint64
		for i := range l {
			l[i] = src.Uint64()
		}
		return new(big.Int).Mod(toBig(l), bound)
	}
	var lazy []*big.Int // values under 2r
	for _, d := range []int64{0, 1, -1} {
		lazy = append(lazy, big.NewInt(d+1), new(big.Int).Add(q, big.NewInt(d)), new(big.Int).Add(q2, big.NewInt(d-2)))
	}
	lazy = append(lazy, big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), uint(q.BitLen())))
	var reduced []*big.Int // twiddles, under r
	for _, v := range lazy {
		if v.Cmp(q) < 0 {
			reduced = append(reduced, v)
		}
	}
	for i := 0; i < 200; i++ {
		lazy = append(lazy, random(q2))
		reduced = append(reduced, random(q))
	}
	rInv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 256), q)
	check := func(name string, op int, a, b, want *big.Int, bound *big.Int) {
		t.Helper()
		la, lb := bigLimbs4(a), bigLimbs4(b)
		got := toBig(FrLazy(c, op, &la, &lb))
		if got.Cmp(bound) >= 0 || new(big.Int).Mod(got, q).Cmp(want) != 0 {
			t.Fatalf("%s(%x, %x) = %x: want %x mod r, under %x", name, a, b, got, want, bound)
		}
	}
	for _, a := range lazy {
		check("reduced", LazyReduce, a, a, new(big.Int).Mod(a, q), q)
		for _, b := range lazy {
			sum := new(big.Int).Add(a, b)
			check("add_2p", LazyAdd, a, b, sum.Mod(sum, q), q2)
			diff := new(big.Int).Sub(a, b)
			check("sub_2p", LazySub, a, b, diff.Mod(diff, q), q2)
		}
		for _, w := range reduced {
			prod := new(big.Int).Mul(w, a)
			prod.Mul(prod, rInv)
			check("mont_mul_2p", LazyMul, w, a, prod.Mod(prod, q), q2)
		}
		for k := int64(1); k <= 31; k++ {
			inv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), uint(k)), q)
			prod := new(big.Int).Mul(a, inv)
			check("div_pow2", LazyDivPow, a, big.NewInt(k), prod.Mod(prod, q), q2)
		}
	}
}

func bigLimbs4(v *big.Int) (l [4]uint64) {
	limbs(v, l[:])
	return l
}

func toBig(l [4]uint64) *big.Int { return toBigRaw(&l) }

// TestFpMulSubMul checks a b - c d with one reduction (the point
// formulas' y3) against gnark-crypto: random values and every choice of
// the edge patterns for (a, b) and (c, d), so the wide difference goes
// negative before + K and reaches both ends of its bound.
func TestFpMulSubMul(t *testing.T) {
	forCurves(t, testFpMulSubMul[blsfp.Element], testFpMulSubMul[bnfp.Element])
}

func testFpMulSubMul[Fp FpElement, PFp elem[Fp]](t *testing.T) {
	check := func(a, b, c, d Fp) {
		var x, y Fp
		PFp(&x).Mul(&a, &b)
		PFp(&y).Mul(&c, &d)
		PFp(&x).Sub(&x, &y)
		if got := FpMulSubMul(&a, &b, &c, &d); !PFp(&got).Equal(&x) {
			t.Fatalf("mul_sub_mul of raw %x %x %x %x: %x, want %x", a, b, c, d, got, x)
		}
	}
	for i := 0; i < 5000; i++ {
		var a, b, c, d Fp
		PFp(&a).SetRandom()
		PFp(&b).SetRandom()
		PFp(&c).SetRandom()
		PFp(&d).SetRandom()
		check(a, b, c, d)
	}
	es := edges[Fp, PFp]()
	for _, a := range es {
		for _, b := range es {
			for _, c := range es {
				for _, d := range es {
					check(a, b, c, d)
				}
			}
		}
	}
}

// sqrEdges are raw limb patterns below p where a squaring's carries and
// its doubled cross products are stressed: edges' (0, 1, 2^64-1, the high
// limb only, p-1, p-2, (p-1)/2) and R mod p (Montgomery one), p-3, every
// 32-bit limb 0xffffffff below p (the top limb p's minus one, and
// 2^(bits(p)-1)-1), bit 31 set in every 32-bit limb but the top one with
// p's top bit, 2^32-1, the top 32-bit limb alone and alternating limbs.
func sqrEdges[Fp any, PFp elem[Fp]]() []Fp {
	q := modulus[Fp, PFp]()
	var probe Fp
	limbs32 := 2 * len(words(&probe))
	topAt := uint(32 * (limbs32 - 1))
	top := new(big.Int).Rsh(q, topAt) // p's top 32-bit limb
	onesBelow := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), topAt), big.NewInt(1))
	belowP := new(big.Int).Add(new(big.Int).Lsh(new(big.Int).Sub(top, big.NewInt(1)), topAt), onesBelow)
	onesTop := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(q.BitLen()-1)), big.NewInt(1))
	bit31, alt := new(big.Int), new(big.Int)
	for i := 0; i < limbs32-1; i++ {
		bit31.SetBit(bit31, 32*i+31, 1)
		if i%2 == 0 {
			alt.Or(alt, new(big.Int).Lsh(big.NewInt(0xffffffff), uint(32*i)))
		}
	}
	bit31.SetBit(bit31, q.BitLen()-1, 1) // below p: p's top bit and less above it
	var one Fp
	PFp(&one).SetOne()
	out := edges[Fp, PFp]()
	out = append(out, fromLimbs[Fp](new(big.Int).Sub(q, big.NewInt(3))), one)
	for _, v := range []*big.Int{belowP, onesTop, bit31, alt, big.NewInt(0xffffffff), new(big.Int).Lsh(big.NewInt(1), topAt)} {
		out = append(out, fromLimbs[Fp](v))
	}
	return out
}

// TestFpSqrDedicatedEqualsGnarkSquare checks field.cuh's Fp::mont_sqr (the
// kernels' squarings by default) against gnark-crypto's
// Square on the edges, random elements and squares of random elements.
func TestFpSqrDedicatedEqualsGnarkSquare(t *testing.T) {
	forCurves(t, testFpSqr[blsfp.Element], testFpSqr[bnfp.Element])
}

func testFpSqr[Fp FpElement, PFp elem[Fp]](t *testing.T) {
	r := rng(t)
	cases := sqrEdges[Fp, PFp]()
	for _, e := range cases {
		if !isReduced[Fp, PFp](&e) {
			t.Fatalf("edge %x is not below p", e)
		}
	}
	for i := 0; i < 100000; i++ {
		a := randElem[Fp, PFp](r)
		cases = append(cases, a)
		if i%4 == 0 {
			var s Fp
			cases = append(cases, *PFp(&s).Square(&a))
		}
	}
	for _, a := range cases {
		var w Fp
		PFp(&w).Square(&a)
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
	forCurves(t, testFp2MulLazy[blsfp.Element, bls.E2], testFp2MulLazy[bnfp.Element, bn254.E2])
}

func testFp2MulLazy[Fp FpElement, E2 E2Element, PFp elem[Fp], PE2 ext[E2]](t *testing.T) {
	r := rng(t)
	es := sqrEdges[Fp, PFp]()
	n := 0
	check := func(a, b *E2) {
		t.Helper()
		n++
		var w E2
		PE2(&w).Mul(a, b)
		if got := Fp2MulLazy(a, b); got != w {
			t.Fatalf("mul_lazy of raw %x and %x: got %x, want %x", *a, *b, got, w)
		}
	}
	for i, x0 := range es {
		for _, x1 := range es {
			a := pair[E2](x0, x1)
			check(&a, &a)
			for k := 0; k < 8; k++ { // edge operands with a random partner pattern
				b := pair[E2](es[(i+k)%len(es)], es[(i*7+k*3)%len(es)])
				check(&a, &b)
			}
		}
	}
	var zero Fp
	for i := 0; i < 50000; i++ {
		a0, a1 := randElem[Fp, PFp](r), randElem[Fp, PFp](r)
		b0, b1 := randElem[Fp, PFp](r), randElem[Fp, PFp](r)
		switch i % 8 {
		case 1:
			b0, b1 = a0, a1
		case 2:
			a0 = zero
		case 3:
			a1 = zero
		case 4:
			b0 = zero
		case 5:
			b1 = zero
		case 6:
			a1, b1 = zero, zero
		}
		a, b := pair[E2](a0, a1), pair[E2](b0, b1)
		check(&a, &b)
	}
	t.Logf("%d multiplications", n)
}

// TestCurveConstants compares curves.cuh's constants with gnark-crypto's:
// each field's modulus, R and R^2 mod it (Montgomery's one and the
// conversion's factor), and the curves' b (G1) and b' (G2's twist) by
// on_curve: gnark-crypto's generators and random points are on the
// kernels' curves, the same points with y + 1 are not.
func TestCurveConstants(t *testing.T) {
	forCurves(t, func(t *testing.T) {
		_, _, g1, g2 := bls.Generators()
		testCurveConstants[blsfr.Element, blsfp.Element](t, cuda.BLS12381, g1, g2, func(p *bls.G1Affine) { p.Y.Add(&p.Y, new(blsfp.Element).SetOne()) },
			func(p *bls.G2Affine) { p.Y.A0.Add(&p.Y.A0, new(blsfp.Element).SetOne()) }, bls.BatchScalarMultiplicationG1, bls.BatchScalarMultiplicationG2)
	}, func(t *testing.T) {
		_, _, g1, g2 := bn254.Generators()
		testCurveConstants[bnfr.Element, bnfp.Element](t, cuda.BN254, g1, g2, func(p *bn254.G1Affine) { p.Y.Add(&p.Y, new(bnfp.Element).SetOne()) },
			func(p *bn254.G2Affine) { p.Y.A0.Add(&p.Y.A0, new(bnfp.Element).SetOne()) }, bn254.BatchScalarMultiplicationG1, bn254.BatchScalarMultiplicationG2)
	})
}

func testCurveConstants[Fr, Fp any, G1, G2 bls.G1Affine | bls.G2Affine | bn254.G1Affine | bn254.G2Affine, PFr elem[Fr], PFp elem[Fp]](
	t *testing.T, c cuda.Curve, g1 G1, g2 G2, bump1 func(*G1), bump2 func(*G2),
	batch1 func(*G1, []Fr) []G1, batch2 func(*G2, []Fr) []G2) {
	field := func(name string, what int, m *big.Int) {
		rr := new(big.Int).Lsh(big.NewInt(1), uint(64*len(Constant(c, what))))
		for i, want := range []*big.Int{m, new(big.Int).Mod(rr, m), new(big.Int).Mod(new(big.Int).Mul(rr, rr), m)} {
			if got := Constant(c, what+i); wordsBig(got).Cmp(want) != 0 {
				t.Errorf("%s constant %d: %x, want %x", name, i, wordsBig(got), want)
			}
		}
	}
	field("fp", ConstP, modulus[Fp, PFp]())
	field("fr", ConstR, modulus[Fr, PFr]())
	r := rng(t)
	sc := randElems[Fr, PFr](r, 20)
	p1 := append(batch1(&g1, sc), g1, *new(G1))
	p2 := append(batch2(&g2, sc), g2, *new(G2))
	for i := range p1 {
		if !OnCurve(&p1[i]) {
			t.Fatalf("g1 point %d is not on the kernels' curve", i)
		}
		if !OnCurve(&p2[i]) {
			t.Fatalf("g2 point %d is not on the kernels' twist", i)
		}
		if i == len(p1)-1 {
			break // infinity
		}
		bump1(&p1[i])
		bump2(&p2[i])
		if OnCurve(&p1[i]) || OnCurve(&p2[i]) {
			t.Fatalf("point %d with y + 1 is on the kernels' curve", i)
		}
	}
}

// wordsBig is little-endian 64-bit limbs as an integer.
func wordsBig(w []uint64) *big.Int {
	v := new(big.Int)
	for i := len(w) - 1; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(w[i]))
	}
	return v
}
