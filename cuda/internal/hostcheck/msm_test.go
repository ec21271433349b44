//go:build cudahost

package hostcheck

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/ref"
)

// The MSM's kernels (msm.cuh, msm_affine.cuh, msm_impl.cuh's steps as
// emu.h runs them), the tables, the batch sums and the fixed-base
// multiplication, for G1 and G2 of each curve, against gnark-crypto.

// specialInputs are n random points and scalars with the edges: scalars
// zero, one, r-1 (twice), equal ones and small ones that share buckets;
// points infinity, repeated, and a point with its negation.
func specialInputs[F FrElement, A, J any, PF elem[F], PA point[A, J], PJ jac[J, A, F]](r *rand.Rand, g groupCase[F, A, J], n int) ([]A, []F) {
	p := ref.Points[F, PF, A, J, PJ](r, g.ref, n, 0)
	s := ref.Scalars[F, PF](r, n)
	PF(&s[0]).SetZero()
	PF(&s[1]).SetOne()
	PF(&s[2]).SetInt64(-1)
	PF(&s[3]).SetInt64(-1)
	p[3] = p[2]
	p[4] = *new(A)
	p[5] = p[6]
	s[5] = s[6]
	PA(&p[7]).Neg(&p[8])
	s[7] = s[8]
	for i := 10; i < 20; i++ { // small scalars share buckets
		PF(&s[i]).SetUint64(uint64(i % 3))
	}
	return p, s
}

// gnarkMSM is gnark-crypto's MultiExp.
func gnarkMSM[F, A, J any, PJ jac[J, A, F]](t *testing.T, p []A, s []F) J {
	var want J
	if _, err := PJ(&want).MultiExp(p, s, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestMSM checks the plain MSM both ways its pairs are sorted, all at
// once (below 2^23 points in the kernels) and a window at a time, and
// both accumulations: XYZZ segments and batch-affine levels, the latter
// with the kernels' shape and with a small one whose trick takes several
// rounds at these sizes.
func TestMSM(t *testing.T) {
	run := func(t *testing.T) {
		forGroups(t, testMSM[blsfr.Element, bls.G1Affine, bls.G1Jac], testMSM[blsfr.Element, bls.G2Affine, bls.G2Jac],
			testMSM[bnfr.Element, bn254.G1Affine, bn254.G1Jac], testMSM[bnfr.Element, bn254.G2Affine, bn254.G2Jac])
	}
	t.Run("one sort", run)
	t.Run("a sort a window", func(t *testing.T) {
		defer SetSortPerWindowMin(SetSortPerWindowMin(1))
		run(t)
	})
	for _, sh := range affineShapes {
		t.Run(fmt.Sprintf("batch-affine %v", sh), func(t *testing.T) {
			defer SetAffineAccumulation(sh[0], sh[1], sh[2])()
			run(t)
		})
	}
}

// slots, group, inverted one a thread: the kernels' (msm_affine.cuh's
// BA_SHAPE) and a small one.
var affineShapes = [][3]int{{8, 8, 2048}, {3, 2, 2}}

func testMSM[F FrElement, A, J any, PF elem[F], PA point[A, J], PJ jac[J, A, F]](t *testing.T) {
	g := groupOf[F, A, J]()
	r := rng(t)
	for _, tc := range []struct{ n, c, seg, chunk int }{
		{1, 8, 4, 4}, {37, 8, 4, 4}, {1000, 9, 3, 8}, {1 << 10, 10, 128, 64}, {3000, 13, 2, 64},
		// seg 0: the kernels' cap (msm_seg_cap), 55 and 151 points here;
		// chunk 0: the kernels' msm_window_chunk (2 and 4 buckets here)
		{1 << 12, 8, 0, 64}, {1 << 12, 4, 0, 8}, {1 << 12, 8, 0, 0}, {3000, 14, 0, 0},
	} {
		p, s := specialInputs[F, A, J, PF, PA, PJ](r, g, max(tc.n, 32))
		p, s = p[:tc.n], s[:tc.n]
		want := gnarkMSM[F, A, J, PJ](t, p, s)
		if got := g.MSM(p, s, tc.c, tc.seg, tc.chunk); !PJ(&got).Equal(&want) {
			t.Fatalf("msm n=%d c=%d differs", tc.n, tc.c)
		}
	}
}

// The MSM over a precomputed table (msm_impl.cuh's precompute and the
// one-bucket-set recoding): the table's rows against gnark's scalar
// multiplication, the MSM (whole and a prefix of the table's rows)
// against gnark's MultiExp, and scalars whose every digit is 1, which put
// n·W points into one bucket.
func TestMSMTable(t *testing.T) {
	run := func(t *testing.T) {
		forGroups(t, testMSMTable[blsfr.Element, bls.G1Affine, bls.G1Jac], testMSMTable[blsfr.Element, bls.G2Affine, bls.G2Jac],
			testMSMTable[bnfr.Element, bn254.G1Affine, bn254.G1Jac], testMSMTable[bnfr.Element, bn254.G2Affine, bn254.G2Jac])
	}
	t.Run("xyzz", run)
	for _, sh := range affineShapes {
		t.Run(fmt.Sprintf("batch-affine %v", sh), func(t *testing.T) {
			defer SetAffineAccumulation(sh[0], sh[1], sh[2])()
			run(t)
		})
	}
}

func testMSMTable[F FrElement, A, J any, PF elem[F], PA point[A, J], PJ jac[J, A, F]](t *testing.T) {
	g := groupOf[F, A, J]()
	r := rng(t)
	for _, tc := range []struct{ n, c, seg, chunk, batch int }{
		{1, 8, 4, 4, 1}, {37, 8, 4, 4, 5}, {300, 9, 3, 8, 32}, {1 << 10, 12, 128, 64, 32}, {500, 16, 16, 64, 7},
		{2000, 10, 0, 64, 32}, // the kernels' cap
	} {
		p, s := specialInputs[F, A, J, PF, PA, PJ](r, g, max(tc.n, 32))
		p, s = p[:tc.n], s[:tc.n]
		rows := (256 + tc.c - 1) / tc.c
		table := g.Precompute(p, tc.c, tc.batch)
		checkTableRows[A, J, PA](t, table, p, tc.c, []int{1, rows - 1}, r)
		ones := make([]F, tc.n) // digit 1 in every window
		var one big.Int
		for w := 0; w < rows; w++ {
			if tc.c*w < 254 {
				one.SetBit(&one, tc.c*w, 1)
			}
		}
		for i := range ones {
			PF(&ones[i]).SetBigInt(&one)
		}
		for _, sc := range [][]F{s, s[:max(tc.n-1, 1)], ones} {
			m := len(sc)
			want := gnarkMSM[F, A, J, PJ](t, p[:m], sc)
			if got := g.MSMTable(table, tc.n, sc, tc.c, tc.seg, tc.chunk); !PJ(&got).Equal(&want) {
				t.Fatalf("msm over a table n=%d of %d c=%d differs", m, tc.n, tc.c)
			}
		}
	}
}

// checkTableRows checks rows of a precomputed table of the points p for
// window c: point i of row w is 2^(c·w) times p[i], for a random i (all
// of them when r is nil).
func checkTableRows[A, J any, PA point[A, J]](t *testing.T, table, p []A, c int, rows []int, r *rand.Rand) {
	t.Helper()
	for _, w := range rows {
		k := new(big.Int).Lsh(big.NewInt(1), uint(c*w))
		idx := []int{}
		if r != nil {
			idx = append(idx, r.IntN(len(p)))
		} else {
			for i := range p {
				idx = append(idx, i)
			}
		}
		for _, i := range idx {
			var want A
			PA(&want).ScalarMultiplication(&p[i], k)
			if !PA(&table[w*len(p)+i]).Equal(&want) {
				t.Fatalf("table n=%d c=%d: row %d point %d is not 2^%d times the base", len(p), c, w, i, c*w)
			}
		}
	}
}

func TestSum(t *testing.T) {
	forGroups(t, testSum[blsfr.Element, bls.G1Affine, bls.G1Jac], testSum[blsfr.Element, bls.G2Affine, bls.G2Jac],
		testSum[bnfr.Element, bn254.G1Affine, bn254.G1Jac], testSum[bnfr.Element, bn254.G2Affine, bn254.G2Jac])
}

func testSum[F FrElement, A, J any, PF elem[F], PA point[A, J], PJ jac[J, A, F]](t *testing.T) {
	g := groupOf[F, A, J]()
	r := rng(t)
	p, _ := specialInputs[F, A, J, PF, PA, PJ](r, g, 600)
	idx := make([]int32, 1500)
	for i := range idx {
		idx[i] = int32(r.IntN(len(p)))
	}
	idx[0], idx[1], idx[2], idx[3] = 4, 2, 7, 8 // infinity, repeated, a point and its negation
	want := g.Infinity()
	for _, i := range idx {
		PJ(&want).AddMixed(&p[i])
	}
	for _, th := range []int{1, 7, 512} {
		if got := g.Sum(p, idx, th); !PJ(&got).Equal(&want) {
			t.Fatalf("sum threads=%d", th)
		}
	}
}

// fixedScalars returns 0, 1, r-1, 2, r-2 and random scalars.
func fixedScalars[F any, PF elem[F]](n int) []F {
	s := make([]F, n)
	PF(&s[1]).SetOne()
	PF(&s[2]).SetInt64(-1)
	PF(&s[3]).SetUint64(2)
	PF(&s[4]).SetInt64(-2)
	for i := 5; i < n; i++ {
		PF(&s[i]).SetRandom()
	}
	return s
}

// TestFixedBase checks the fixed-base kernels' arithmetic (fixed_mul,
// fixed_to_affine with partial last batches, infinity) against
// gnark-crypto's batch scalar multiplication, for several window sizes.
func TestFixedBase(t *testing.T) {
	forGroups(t, testFixedBase[blsfr.Element, bls.G1Affine, bls.G1Jac], testFixedBase[blsfr.Element, bls.G2Affine, bls.G2Jac],
		testFixedBase[bnfr.Element, bn254.G1Affine, bn254.G1Jac], testFixedBase[bnfr.Element, bn254.G2Affine, bn254.G2Jac])
}

func testFixedBase[F FrElement, A comparable, J any, PF elem[F], PA point[A, J]](t *testing.T) {
	g := groupOf[F, A, J]()
	sc := fixedScalars[F, PF](70)
	want := g.ref.MulGenerator(sc)
	for _, c := range []int{4, 7, 12} {
		for _, batch := range []int{1, 32} {
			got := g.Fixed(g.FixedTable(c), c, sc, batch)
			for i := range sc {
				if got[i] != want[i] {
					t.Errorf("c %d batch %d: point %d (scalar %s) differs", c, batch, i, PF(&sc[i]).String())
				}
			}
		}
	}
}

// The kernels' batch-affine scratch (ba_scratch_bytes) is what the
// device memory model counts (cuda.AffineScratch), for both groups of
// both curves, plain windows and tables, and sizes around the cap; at
// 2^20 BLS12-381 G2 points and c = 16 (16 windows, 2^19 buckets) it is
// the figure that fits under the 4 GiB cap.
func TestBAScratchBytesIsTheModels(t *testing.T) {
	forGroups(t, testBAScratch[blsfr.Element, bls.G1Affine, bls.G1Jac], testBAScratch[blsfr.Element, bls.G2Affine, bls.G2Jac],
		testBAScratch[bnfr.Element, bn254.G1Affine, bn254.G1Jac], testBAScratch[bnfr.Element, bn254.G2Affine, bn254.G2Jac])
	if got := BLS12381G2.BAScratchBytes(16<<20, 1<<19); got != 3763492836 {
		t.Errorf("ba_scratch_bytes<Fp2>(2^24, 2^19) = %d, want 3763492836", got)
	}
}

func testBAScratch[F, A, J any](t *testing.T) {
	g := groupOf[F, A, J]()
	field := g.PointBytes() / 2 // an affine point is two coordinates
	for _, n := range []int{1, 1000, 1 << 16, 1<<20 + 3, 1 << 24} {
		for _, c := range []int{4, 13, 16, 20, 22} {
			for _, table := range []bool{false, true} {
				w := uint64((256 + c - 1) / c)
				nb := uint64(1) << (c - 1)
				if !table {
					nb *= w
				}
				if got, want := g.BAScratchBytes(uint64(n)*w, uint32(nb)), cuda.AffineScratch(n, c, table, field); got != want {
					t.Errorf("n %d, c %d, table %v: the kernels' %d, the model's %d", n, c, table, got, want)
				}
			}
		}
	}
}

// TestMSMWithArithmeticVariants runs the MSM emulation built with the
// other arithmetic, the plain one (-DPL_PLAIN_ARITHMETIC, variants.cpp),
// against gnark-crypto (TestMSM* check the default, mont_sqr and
// mul_lazy): whole MSMs (XYZZ mixed and full additions, doublings, the
// window reduction) and precomputed tables (doublings and batch
// inversions, ~380 squarings each).
func TestMSMWithArithmeticVariants(t *testing.T) {
	forGroups(t, testVariants[blsfr.Element, bls.G1Affine, bls.G1Jac], testVariants[blsfr.Element, bls.G2Affine, bls.G2Jac],
		testVariants[bnfr.Element, bn254.G1Affine, bn254.G1Jac], testVariants[bnfr.Element, bn254.G2Affine, bn254.G2Jac])
}

func testVariants[F FrElement, A, J any, PF elem[F], PA point[A, J], PJ jac[J, A, F]](t *testing.T) {
	g := groupOf[F, A, J]()
	r := rng(t)
	for _, tc := range []struct{ n, c, seg, chunk int }{
		{37, 8, 4, 4}, {1000, 9, 3, 8}, {300, 13, 2, 64},
	} {
		p, s := specialInputs[F, A, J, PF, PA, PJ](r, g, max(tc.n, 32))
		p, s = p[:tc.n], s[:tc.n]
		want := gnarkMSM[F, A, J, PJ](t, p, s)
		if got := g.VariantsMSM(p, s, tc.c, tc.seg, tc.chunk); !PJ(&got).Equal(&want) {
			t.Fatalf("msm n=%d c=%d differs", tc.n, tc.c)
		}
	}
	p, _ := specialInputs[F, A, J, PF, PA, PJ](r, g, 40)
	const c, batch = 9, 7
	rows := (256 + c - 1) / c
	checkTableRows[A, J, PA](t, g.VariantsPrecompute(p, c, batch), p, c, []int{1, 2, rows - 1}, nil)
}
