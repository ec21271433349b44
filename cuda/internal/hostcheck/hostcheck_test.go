//go:build cudahost

package hostcheck

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/cuda/internal/points"
	"github.com/prooflane/prooflane/internal/ref"
)

func rng(t *testing.T) *rand.Rand {
	seed := ref.Seed()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 1))
}

func TestField(t *testing.T) {
	for i := 0; i < 2000; i++ {
		var a, b fr.Element
		a.SetRandom()
		b.SetRandom()
		if i == 0 {
			a.SetInt64(-1)
			b.SetInt64(-1)
		}
		var w fr.Element
		if got := FrMul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
			t.Fatalf("fr mul")
		}
		if got := FrAdd(&a, &b); !got.Equal(w.Add(&a, &b)) {
			t.Fatalf("fr add")
		}
		if got := FrSub(&a, &b); !got.Equal(w.Sub(&a, &b)) {
			t.Fatalf("fr sub")
		}
		var x, y, z fp.Element
		x.SetRandom()
		y.SetRandom()
		if i == 0 {
			x.SetInt64(-1)
			y.SetInt64(-1)
		}
		if got := FpMul(&x, &y); !got.Equal(z.Mul(&x, &y)) {
			t.Fatalf("fp mul")
		}
		if got := FpInv(&x); !got.Equal(z.Inverse(&x)) {
			t.Fatalf("fp inverse of %x", x)
		}
		var e, f, g bls.E2
		e.SetRandom()
		f.SetRandom()
		if got := Fp2Mul(&e, &f); !got.Equal(g.Mul(&e, &f)) {
			t.Fatalf("fp2 mul")
		}
		if got := Fp2Sqr(&e); !got.Equal(g.Square(&e)) {
			t.Fatalf("fp2 sqr")
		}
		if got := Fp2Inv(&e); !got.Equal(g.Inverse(&e)) {
			t.Fatalf("fp2 inverse")
		}
	}
}

// TestFieldEdges multiplies every pair of raw Montgomery limb patterns at
// the edges (0, 1, p-1, p-2, (p-1)/2, 2^64-1 in the low limb, high limb
// only), where the multiplication's carry chains and its final subtraction
// are stressed, and inverts each Fp pattern (the binary Euclid's first
// and last steps).
func TestFieldEdges(t *testing.T) {
	frs := frEdges()
	for _, a := range frs {
		for _, b := range frs {
			var w fr.Element
			if got := FrMul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
				t.Fatalf("fr mul of raw %x and %x", a, b)
			}
		}
	}
	fps := fpEdges()
	for _, a := range fps {
		for _, b := range fps {
			var w fp.Element
			if got := FpMul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
				t.Fatalf("fp mul of raw %x and %x", a, b)
			}
		}
		var w fp.Element
		if got := FpInv(&a); !got.Equal(w.Inverse(&a)) {
			t.Fatalf("fp inverse of raw %x", a)
		}
	}
}

// TestFrLazyOpsStayUnderTwiceR checks the NTT passes' [0, 2r) arithmetic
// (field.cuh's add_2p, sub_2p, mont_mul_2p, reduced) against big-integer
// arithmetic mod r: each result is the right residue and under 2r (the
// reduction under r), on the ends of the range (0, 1, 2, r-1, r, r+1,
// 2r-3, 2r-2, 2r-1, 2^255) and random values under 2r; the multiplication's first
// operand, a twiddle, under r; the division by 2^k (the inverse NTT's
// 1/n) for every k the NTT's last pass uses.
func TestFrLazyOpsStayUnderTwiceR(t *testing.T) {
	q := fr.Modulus()
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
	lazy = append(lazy, big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), 255))
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
		got := toBig(FrLazy(op, &la, &lb))
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

func toBig(l [4]uint64) *big.Int {
	v := new(big.Int)
	for i := 3; i >= 0; i-- {
		v.Lsh(v, 64)
		v.Or(v, new(big.Int).SetUint64(l[i]))
	}
	return v
}

// TestFpMulSubMul checks a b - c d with one reduction (the point
// formulas' y3) against gnark-crypto: random values and every choice of
// the edge patterns for (a, b) and (c, d), so the wide difference goes
// negative before + K and reaches both ends of its bound.
func TestFpMulSubMul(t *testing.T) {
	check := func(a, b, c, d fp.Element) {
		var x, y fp.Element
		x.Mul(&a, &b)
		y.Mul(&c, &d)
		x.Sub(&x, &y)
		if got := FpMulSubMul(&a, &b, &c, &d); !got.Equal(&x) {
			t.Fatalf("mul_sub_mul of raw %x %x %x %x: %x, want %x", a, b, c, d, got, x)
		}
	}
	for i := 0; i < 5000; i++ {
		var a, b, c, d fp.Element
		a.SetRandom()
		b.SetRandom()
		c.SetRandom()
		d.SetRandom()
		check(a, b, c, d)
	}
	edges := fpEdges()
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					check(a, b, c, d)
				}
			}
		}
	}
}

// TestFp64 checks fp64.cuh's FP64-pipe multiplication against
// gnark-crypto: random pairs, every pair of the edge patterns, and chains
// of squarings kept in its representation (its bounds say values stay
// below p in magnitude along a chain; a chain that drifted would fail).
func TestFp64(t *testing.T) {
	random := func() (x fp.Element) {
		x.SetRandom() // raw limbs uniform below p
		return
	}
	for i := 0; i < 20000; i++ {
		a, b := random(), random()
		var w fp.Element
		if got := Fp64Mul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
			t.Fatalf("fp64 mul of raw %x and %x: %x, want %x", a, b, got, w)
		}
	}
	edges := fpEdges()
	for _, a := range edges {
		for _, b := range edges {
			var w fp.Element
			if got := Fp64Mul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
				t.Fatalf("fp64 mul of raw %x and %x: %x, want %x", a, b, got, w)
			}
		}
	}
	for i := 0; i < 50; i++ {
		a := random()
		if i < len(edges) {
			a = edges[i]
		}
		w := a
		for k := 0; k < 300; k++ {
			w.Square(&w)
		}
		if got := Fp64Squarings(&a, 300); !got.Equal(&w) {
			t.Fatalf("fp64: 300 squarings of raw %x: %x, want %x", a, got, w)
		}
	}
}

func frEdges() []fr.Element {
	q := fr.Modulus()
	return []fr.Element{
		{}, {1, 0, 0, 0}, {^uint64(0), 0, 0, 0}, {0, 0, 0, 1},
		fr.Element(rawLimbs4(q, -1)), fr.Element(rawLimbs4(q, -2)), fr.Element(rawHalf4(q)),
	}
}

func fpEdges() []fp.Element {
	q := fp.Modulus()
	return []fp.Element{
		{}, {1, 0, 0, 0, 0, 0}, {^uint64(0), 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1},
		fp.Element(rawLimbs6(q, -1)), fp.Element(rawLimbs6(q, -2)), fp.Element(rawHalf6(q)),
	}
}

// rawLimbs4 returns the little-endian limbs of q+d.
func rawLimbs4(q *big.Int, d int64) (l [4]uint64) {
	limbs(new(big.Int).Add(q, big.NewInt(d)), l[:])
	return l
}

func rawHalf4(q *big.Int) (l [4]uint64) {
	limbs(new(big.Int).Rsh(q, 1), l[:])
	return l
}

func rawLimbs6(q *big.Int, d int64) (l [6]uint64) {
	limbs(new(big.Int).Add(q, big.NewInt(d)), l[:])
	return l
}

func rawHalf6(q *big.Int) (l [6]uint64) {
	limbs(new(big.Int).Rsh(q, 1), l[:])
	return l
}

func limbs(v *big.Int, out []uint64) {
	m := new(big.Int).SetUint64(^uint64(0))
	for i := range out {
		out[i] = new(big.Int).And(v, m).Uint64()
		v = new(big.Int).Rsh(v, 64)
	}
}

// special scalars: zero, one, r-1, and points: infinity, repeated.
func specialInputs(r *rand.Rand, n int) ([]bls.G1Affine, []bls.G2Affine, []fr.Element) {
	g1 := ref.G1(r, n)
	g2 := ref.G2(r, n)
	s := ref.Fr(r, n)
	s[0].SetZero()
	s[1].SetOne()
	s[2].SetInt64(-1)
	s[3].SetInt64(-1)
	g1[3] = g1[2]
	g2[3] = g2[2]
	g1[4] = bls.G1Affine{}
	g2[4] = bls.G2Affine{}
	g1[5] = g1[6]
	s[5] = s[6]
	g1[7].Neg(&g1[8])
	s[7] = s[8]
	for i := 10; i < 20; i++ { // small scalars share buckets
		s[i].SetUint64(uint64(i % 3))
	}
	return g1, g2, s
}

// TestMSM checks the plain MSM both ways its pairs are sorted, all at
// once (below 2^23 points in the kernels) and a window at a time, and
// both accumulations: XYZZ segments and batch-affine levels, the latter
// with the kernels' shape and with a small one whose trick takes several
// rounds at these sizes.
func TestMSM(t *testing.T) {
	t.Run("one sort", func(t *testing.T) { testMSM(t) })
	t.Run("a sort a window", func(t *testing.T) {
		defer SetSortPerWindowMin(SetSortPerWindowMin(1))
		testMSM(t)
	})
	for _, sh := range affineShapes {
		t.Run(fmt.Sprintf("batch-affine %v", sh), func(t *testing.T) {
			defer SetAffineAccumulation(sh[0], sh[1], sh[2])()
			testMSM(t)
		})
	}
}

// slots, group, inverted one a thread: the kernels' (msm_affine.cuh's
// BA_SHAPE) and a small one.
var affineShapes = [][3]int{{8, 8, 2048}, {3, 2, 2}}

func testMSM(t *testing.T) {
	r := rng(t)
	for _, tc := range []struct{ n, c, seg, chunk int }{
		{1, 8, 4, 4}, {37, 8, 4, 4}, {1000, 9, 3, 8}, {1 << 10, 10, 128, 64}, {3000, 13, 2, 64},
		// seg 0: the kernels' cap (msm_seg_cap), 55 and 151 points here;
		// chunk 0: the kernels' msm_window_chunk (2 and 4 buckets here)
		{1 << 12, 8, 0, 64}, {1 << 12, 4, 0, 8}, {1 << 12, 8, 0, 0}, {3000, 14, 0, 0},
	} {
		g1, g2, s := specialInputs(r, max(tc.n, 32))
		g1, g2, s = g1[:tc.n], g2[:tc.n], s[:tc.n]
		var want bls.G1Jac
		if _, err := want.MultiExp(g1, s, curve.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		got := MSMG1(g1, s, tc.c, tc.seg, tc.chunk)
		if !got.Equal(&want) {
			t.Fatalf("g1 msm n=%d c=%d differs", tc.n, tc.c)
		}
		var want2 bls.G2Jac
		if _, err := want2.MultiExp(g2, s, curve.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		got2 := MSMG2(g2, s, tc.c, tc.seg, tc.chunk)
		if !got2.Equal(&want2) {
			t.Fatalf("g2 msm n=%d c=%d differs", tc.n, tc.c)
		}
	}
}

// The MSM over a precomputed table (msm_impl.cuh's precompute and the
// one-bucket-set recoding): the table's rows against gnark's scalar
// multiplication, the MSM (whole and a prefix of the table's rows)
// against gnark's MultiExp, and scalars whose every digit is 1, which put
// n·W points into one bucket.
func TestMSMTable(t *testing.T) {
	t.Run("xyzz", testMSMTable)
	for _, sh := range affineShapes {
		t.Run(fmt.Sprintf("batch-affine %v", sh), func(t *testing.T) {
			defer SetAffineAccumulation(sh[0], sh[1], sh[2])()
			testMSMTable(t)
		})
	}
}

func testMSMTable(t *testing.T) {
	r := rng(t)
	for _, tc := range []struct{ n, c, seg, chunk, batch int }{
		{1, 8, 4, 4, 1}, {37, 8, 4, 4, 5}, {300, 9, 3, 8, 32}, {1 << 10, 12, 128, 64, 32}, {500, 16, 16, 64, 7},
		{2000, 10, 0, 64, 32}, // the kernels' cap
	} {
		g1, g2, s := specialInputs(r, max(tc.n, 32))
		g1, g2, s = g1[:tc.n], g2[:tc.n], s[:tc.n]
		rows := (256 + tc.c - 1) / tc.c
		t1 := PrecomputeG1(g1, tc.c, tc.batch)
		t2 := PrecomputeG2(g2, tc.c, tc.batch)
		for _, w := range []int{1, rows - 1} {
			i := r.IntN(tc.n)
			k := new(big.Int).Lsh(big.NewInt(1), uint(tc.c*w))
			var want1 bls.G1Affine
			want1.ScalarMultiplication(&g1[i], k)
			if !t1[w*tc.n+i].Equal(&want1) {
				t.Fatalf("g1 table n=%d c=%d: row %d point %d is not 2^%d times the base", tc.n, tc.c, w, i, tc.c*w)
			}
			var want2 bls.G2Affine
			want2.ScalarMultiplication(&g2[i], k)
			if !t2[w*tc.n+i].Equal(&want2) {
				t.Fatalf("g2 table n=%d c=%d: row %d point %d is not 2^%d times the base", tc.n, tc.c, w, i, tc.c*w)
			}
		}
		ones := make([]fr.Element, tc.n) // digit 1 in every window
		var one big.Int
		for w := 0; w < rows; w++ {
			if tc.c*w < 254 {
				one.SetBit(&one, tc.c*w, 1)
			}
		}
		for i := range ones {
			ones[i].SetBigInt(&one)
		}
		for _, sc := range [][]fr.Element{s, s[:max(tc.n-1, 1)], ones} {
			m := len(sc)
			var want1 bls.G1Jac
			if _, err := want1.MultiExp(g1[:m], sc, curve.MultiExpConfig{}); err != nil {
				t.Fatal(err)
			}
			if got := MSMG1Table(t1, tc.n, sc, tc.c, tc.seg, tc.chunk); !got.Equal(&want1) {
				t.Fatalf("g1 msm over a table n=%d of %d c=%d differs", m, tc.n, tc.c)
			}
			var want2 bls.G2Jac
			if _, err := want2.MultiExp(g2[:m], sc, curve.MultiExpConfig{}); err != nil {
				t.Fatal(err)
			}
			if got := MSMG2Table(t2, tc.n, sc, tc.c, tc.seg, tc.chunk); !got.Equal(&want2) {
				t.Fatalf("g2 msm over a table n=%d of %d c=%d differs", m, tc.n, tc.c)
			}
		}
	}
}

func TestSum(t *testing.T) {
	r := rng(t)
	g1, g2, _ := specialInputs(r, 600)
	idx := make([]int32, 1500)
	for i := range idx {
		idx[i] = int32(r.IntN(len(g1)))
	}
	idx[0], idx[1] = 4, 2 // infinity, repeated
	var want bls.G1Jac
	var want2 bls.G2Jac
	for _, i := range idx {
		want.AddMixed(&g1[i])
		want2.AddMixed(&g2[i])
	}
	for _, th := range []int{1, 7, 512} {
		if got := SumG1(g1, idx, th); !got.Equal(&want) {
			t.Fatalf("g1 sum threads=%d", th)
		}
		if got := SumG2(g2, idx, th); !got.Equal(&want2) {
			t.Fatalf("g2 sum threads=%d", th)
		}
	}
}

func TestNTT(t *testing.T) {
	r := rng(t)
	for _, logn := range []int{1, 2, 5, 9, 10, 11, 13, 16} {
		n := 1 << logn
		d := fft.NewDomain(uint64(n))
		for _, inverse := range []bool{false, true} {
			for _, dif := range []bool{false, true} {
				for _, coset := range []bool{false, true} {
					x := ref.Fr(r, n)
					want := ref.NTT(x, d, inverse, dif, coset)
					NTT(x, d, inverse, dif, coset)
					for i := range x {
						if !x[i].Equal(&want[i]) {
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
// up: below, a pass is one block of under 16 threads.
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
	r := rng(t)
	edges := frEdges()
	var a, b []fr.Element
	for _, x := range edges {
		for _, y := range edges {
			a, b = append(a, x), append(b, y)
		}
	}
	a, b = append(a, ref.Fr(r, 1000)...), append(b, ref.Fr(r, 1000)...)
	ops := []struct {
		name string
		op   int
		want func(z, x, y *fr.Element)
	}{
		{"mul", VecMul, func(z, x, y *fr.Element) { z.Mul(x, y) }},
		{"add", VecAdd, func(z, x, y *fr.Element) { z.Add(x, y) }},
		{"sub", VecSub, func(z, x, y *fr.Element) { z.Sub(x, y) }},
	}
	for _, o := range ops {
		got := FrVec(o.op, a, b)
		for i := range a {
			if i < len(edges)*len(edges) && (!isReduced(&a[i]) || !isReduced(&b[i])) {
				continue // gnark-crypto's add and sub assume reduced inputs
			}
			var w fr.Element
			o.want(&w, &a[i], &b[i])
			if !got[i].Equal(&w) {
				t.Fatalf("%s of raw %x and %x differs", o.name, a[i], b[i])
			}
		}
		if o.op == VecSub {
			continue // pl_fr_vec_const has no subtraction
		}
		for _, c := range append(edges, ref.Fr(r, 1)...) {
			if !isReduced(&c) {
				continue
			}
			got := FrVecConst(o.op, a, c)
			for i := range a {
				if !isReduced(&a[i]) {
					continue
				}
				var w fr.Element
				o.want(&w, &a[i], &c)
				if !got[i].Equal(&w) {
					t.Fatalf("%s of raw %x and constant %x differs", o.name, a[i], c)
				}
			}
		}
	}
}

// isReduced reports whether e's limbs are below the modulus.
func isReduced(e *fr.Element) bool {
	var b big.Int
	for i := 3; i >= 0; i-- {
		b.Lsh(&b, 64).Or(&b, new(big.Int).SetUint64(e[i]))
	}
	return b.Cmp(fr.Modulus()) < 0
}

func TestComputeH(t *testing.T) {
	r := rng(t)
	for _, logn := range []int{1, 4, 10, 14} {
		n := 1 << logn
		d := fft.NewDomain(uint64(n))
		a, b, c := ref.Fr(r, n), ref.Fr(r, n), ref.Fr(r, n)
		// gnark pads a shorter witness with zeros
		for i := n - n/3; i < n; i++ {
			a[i].SetZero()
			b[i].SetZero()
			c[i].SetZero()
		}
		want := slices.Clone(a)
		ref.H(want, slices.Clone(b), slices.Clone(c), d)
		ComputeH(a, b, c, d)
		for i := range a {
			if !a[i].Equal(&want[i]) {
				t.Fatalf("logn=%d: differs at %d", logn, i)
			}
		}
	}
}

// fixedScalars returns 0, 1, r-1, 2, 2^255-ish (r-2) and random scalars.
func fixedScalars(n int) []fr.Element {
	s := make([]fr.Element, n)
	s[1].SetOne()
	s[2].SetInt64(-1)
	s[3].SetUint64(2)
	s[4].SetInt64(-2)
	for i := 5; i < n; i++ {
		s[i].SetRandom()
	}
	return s
}

// TestFixedBase checks the fixed-base kernels' arithmetic (fixed_mul,
// fixed_to_affine with partial last batches, infinity) against
// gnark-crypto's batch scalar multiplication, for several window sizes.
func TestFixedBase(t *testing.T) {
	sc := fixedScalars(70)
	_, _, g1, g2 := bls.Generators()
	want1 := bls.BatchScalarMultiplicationG1(&g1, sc)
	want2 := bls.BatchScalarMultiplicationG2(&g2, sc)
	for _, c := range []int{4, 7, 12} {
		for _, batch := range []int{1, 32} {
			got1 := FixedG1(points.FixedTableG1(c), c, sc, batch)
			got2 := FixedG2(points.FixedTableG2(c), c, sc, batch)
			for i := range sc {
				if got1[i] != want1[i] {
					t.Errorf("c %d batch %d: g1 point %d (scalar %s) differs", c, batch, i, sc[i].String())
				}
				if got2[i] != want2[i] {
					t.Errorf("c %d batch %d: g2 point %d (scalar %s) differs", c, batch, i, sc[i].String())
				}
			}
		}
	}
}

// The kernels' batch-affine scratch (ba_scratch_bytes) is what the
// device memory model counts (cuda.AffineScratch), for both groups, plain
// windows and tables, and sizes around the cap; at 2^20 G2 points and
// c = 16 (16 windows, 2^19 buckets) it is the figure that fits under the
// 4 GiB cap.
func TestBAScratchBytesIsTheModels(t *testing.T) {
	for _, g2 := range []bool{false, true} {
		field := 48
		if g2 {
			field = 96
		}
		for _, n := range []int{1, 1000, 1 << 16, 1<<20 + 3, 1 << 24} {
			for _, c := range []int{4, 13, 16, 20, 22} {
				for _, table := range []bool{false, true} {
					w := uint64((256 + c - 1) / c)
					nb := uint64(1) << (c - 1)
					if !table {
						nb *= w
					}
					if got, want := BAScratchBytes(g2, uint64(n)*w, uint32(nb)), cuda.AffineScratch(n, c, table, field); got != want {
						t.Errorf("g2 %v, n %d, c %d, table %v: the kernels' %d, the model's %d", g2, n, c, table, got, want)
					}
				}
			}
		}
	}
	if got := BAScratchBytes(true, 16<<20, 1<<19); got != 3763492836 {
		t.Errorf("ba_scratch_bytes<Fp2>(2^24, 2^19) = %d, want 3763492836", got)
	}
}
