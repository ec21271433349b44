//go:build cuda

package cuda

import (
	"context"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"

	"github.com/prooflane/prooflane/internal/ref"
)

// The kernels of every curve through the curve-generic API (Field,
// Group: BLS12381Fr, BN254G1, ...) against gnark-crypto of that curve on
// fresh random inputs: NTTs, the vector operations and the H step; G1
// and G2 MSMs plain, over tables, with the units summed apart, by both
// accumulations, over host bases; batch sums; fixed-base
// multiplication. Sizes up to 2^maxLog (2^16 unless
// PROOFLANE_CUDA_TEST_MAXLOG says), at most 2^20 where gnark-crypto's
// reference is slow. The BLS12-381-only tests of cuda_test.go (through
// Stream's methods) are the same kernels; these add BN254.

// elem is what the tests need of gnark-crypto's fr.Element.
type elem[F any] interface {
	*F
	SetBytes([]byte) *F
	SetOne() *F
	SetZero() *F
	SetInt64(int64) *F
	SetUint64(uint64) *F
	SetBigInt(*big.Int) *F
	Exp(x F, k *big.Int) *F
	Mul(x, y *F) *F
	Add(x, y *F) *F
	Sub(x, y *F) *F
	Neg(x *F) *F
	Inverse(x *F) *F
	Equal(x *F) bool
	IsZero() bool
	IsOne() bool
}

// affinePoint and jacPoint are what they need of gnark-crypto's points.
type affinePoint[A any] interface {
	*A
	Neg(*A) *A
	Equal(*A) bool
}

type jacPoint[J, A, F any] interface {
	*J
	Equal(*J) bool
	MultiExp([]A, []F, ecc.MultiExpConfig) (*J, error)
	AddMixed(*A) *J
	FromAffine(*A) *J
}

// forCurves runs a test a curve, subtests named after it.
func forCurves(t *testing.T, bls12381, bn func(t *testing.T)) {
	t.Run(BLS12381.String(), bls12381)
	t.Run(BN254.String(), bn)
}

// forGroups runs a test a group: bls12-381/g1, bls12-381/g2, bn254/g1,
// bn254/g2.
func forGroups(t *testing.T, blsG1, blsG2, bnG1, bnG2 func(t *testing.T)) {
	forCurves(t, func(t *testing.T) {
		t.Run("g1", blsG1)
		t.Run("g2", blsG2)
	}, func(t *testing.T) {
		t.Run("g1", bnG1)
		t.Run("g2", bnG2)
	})
}

func newBLSDomain(n uint64) *blsfft.Domain { return blsfft.NewDomain(n) }
func newBNDomain(n uint64) *bnfft.Domain   { return bnfft.NewDomain(n) }

// uploadOf copies x to a new vector of f's curve, freed after the test.
func uploadOf[F ~[4]uint64, D any](t testing.TB, s *Stream, f *Field[F, D], x []F) *Vector {
	t.Helper()
	v, err := f.Alloc(s, len(x))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Free(v) })
	if err := f.Upload(s, v, x, false); err != nil {
		t.Fatal(err)
	}
	return v
}

func downloadOf[F ~[4]uint64, D any](t testing.TB, s *Stream, f *Field[F, D], v *Vector) []F {
	t.Helper()
	out := make([]F, v.Len())
	if err := f.Download(s, out, v); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalOf[F any, PF elem[F]](t testing.TB, what string, got, want []F) {
	t.Helper()
	for i := range want {
		if !PF(&got[i]).Equal(&want[i]) {
			t.Fatalf("%s: differs at %d of %d", what, i, len(want))
		}
	}
}

func TestCurvesNTT(t *testing.T) {
	forCurves(t, func(t *testing.T) { testCurveNTT(t, BLS12381Fr, ref.BLS12381FFT, newBLSDomain) },
		func(t *testing.T) { testCurveNTT(t, BN254Fr, ref.BN254FFT, newBNDomain) })
}

// testCurveNTT: forward and inverse, DIF and DIT, on the coset or not,
// at every size, against gnark-crypto's fft of the curve, and a round
// trip; a domain of the other curve is refused.
func testCurveNTT[F ~[4]uint64, D any, PF elem[F]](t *testing.T, f *Field[F, D], fft ref.FFT[F, D], newDomain func(uint64) *D) {
	s := stream(t)
	r := rng(t)
	for _, logn := range append([]int{1, 3}, sizes(10)...) {
		n := 1 << logn
		d := newDomain(uint64(n))
		for _, inverse := range []bool{false, true} {
			for _, dif := range []bool{false, true} {
				for _, coset := range []bool{false, true} {
					x := ref.Scalars[F, PF](r, n)
					want := fft.Transform(x, d, inverse, dif, coset)
					v := uploadOf(t, s, f, x)
					var err error
					if inverse {
						err = f.FFTInverse(s, v, d, dif, coset)
					} else {
						err = f.FFT(s, v, d, dif, coset)
					}
					if err != nil {
						t.Fatal(err)
					}
					equalOf[F, PF](t, "ntt", downloadOf(t, s, f, v), want)
					s.Free(v)
				}
			}
		}
		x := ref.Scalars[F, PF](r, n)
		v := uploadOf(t, s, f, x)
		if err := f.FFT(s, v, d, true, false); err != nil {
			t.Fatal(err)
		}
		if err := f.FFTInverse(s, v, d, false, false); err != nil {
			t.Fatal(err)
		}
		equalOf[F, PF](t, "round trip", downloadOf(t, s, f, v), x)
		t.Logf("%s ntt 2^%d ok", f.Curve(), logn)
	}
}

// TestCurvesRefuseOtherCurves: a vector of one curve in another curve's
// operations, or a domain that is no domain of the field, is an error,
// not a result.
func TestCurvesRefuseOtherCurves(t *testing.T) {
	s := stream(t)
	r := rng(t)
	blsV := uploadOf(t, s, BLS12381Fr, ref.Fr(r, 16))
	bnV := uploadOf(t, s, BN254Fr, ref.Scalars[bnfr.Element](r, 16))
	if err := BN254Fr.FFT(s, blsV, bnfft.NewDomain(16), true, false); err == nil {
		t.Error("a bn254 ntt of a bls12-381 vector: no error")
	}
	if err := s.FFT(bnV, blsfft.NewDomain(16), true, false); err == nil {
		t.Error("a bls12-381 ntt of a bn254 vector: no error")
	}
	if err := s.Mul(bnV, bnV, blsV); err == nil {
		t.Error("a product of a bn254 and a bls12-381 vector: no error")
	}
	if err := s.Download(make([]blsfr.Element, 16), bnV); err == nil {
		t.Error("a bls12-381 download of a bn254 vector: no error")
	}
	// a domain whose omega is not of order n (here 1) is refused by the
	// kernels, not transformed
	bad := bnfft.NewDomain(16)
	bad.Generator.SetOne()
	if err := BN254Fr.FFT(s, bnV, bad, true, false); err == nil {
		t.Error("an ntt over a domain whose omega is 1: no error")
	}
	b, err := BN254G1.Load(device(t), "test-refuse", ref.Points(r, ref.BN254G1, 16, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer device(t).Evict("test-refuse")
	if _, err := BN254G1.MSM(context.Background(), s, b, blsV, 16); err == nil {
		t.Error("a bn254 msm of bls12-381 scalars: no error")
	}
}

func TestCurvesVectorOps(t *testing.T) {
	forCurves(t, func(t *testing.T) { testCurveVectorOps(t, BLS12381Fr) }, func(t *testing.T) { testCurveVectorOps(t, BN254Fr) })
}

// testCurveVectorOps: Mul, Add, Sub (dst aliasing an operand too),
// Scale and AddScalar against gnark-crypto, with 0, 1 and -1 among the
// operands and constants.
func testCurveVectorOps[F ~[4]uint64, D any, PF elem[F]](t *testing.T, f *Field[F, D]) {
	s := stream(t)
	r := rng(t)
	n := 1<<maxLog() + 3
	a, b := ref.Scalars[F, PF](r, n), ref.Scalars[F, PF](r, n)
	PF(&a[0]).SetZero()
	PF(&a[1]).SetOne()
	PF(&a[2]).SetInt64(-1)
	PF(&b[3]).SetInt64(-1)
	PF(&b[4]).SetZero()
	va, vb := uploadOf(t, s, f, a), uploadOf(t, s, f, b)
	dst, err := f.Alloc(s, n)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free(dst)
	for _, op := range []struct {
		name string
		run  func() error
		want func(z, x, y *F)
	}{
		{"mul", func() error { return s.Mul(dst, va, vb) }, func(z, x, y *F) { PF(z).Mul(x, y) }},
		{"add", func() error { return s.Add(dst, va, vb) }, func(z, x, y *F) { PF(z).Add(x, y) }},
		{"sub", func() error { return s.Sub(dst, va, vb) }, func(z, x, y *F) { PF(z).Sub(x, y) }},
	} {
		if err := op.run(); err != nil {
			t.Fatal(err)
		}
		want := make([]F, n)
		for i := range want {
			op.want(&want[i], &a[i], &b[i])
		}
		equalOf[F, PF](t, op.name, downloadOf(t, s, f, dst), want)
	}
	var consts [4]F
	PF(&consts[1]).SetOne()
	PF(&consts[2]).SetInt64(-1)
	consts[3] = ref.Scalars[F, PF](r, 1)[0]
	for _, c := range consts {
		if err := f.Scale(s, dst, va, c); err != nil {
			t.Fatal(err)
		}
		want := make([]F, n)
		for i := range want {
			PF(&want[i]).Mul(&a[i], &c)
		}
		equalOf[F, PF](t, "scale", downloadOf(t, s, f, dst), want)
		if err := f.AddScalar(s, va, va, c); err != nil { // in place
			t.Fatal(err)
		}
		for i := range a {
			PF(&a[i]).Add(&a[i], &c)
		}
		equalOf[F, PF](t, "add scalar in place", downloadOf(t, s, f, va), a)
	}
}

func TestCurvesComputeH(t *testing.T) {
	forCurves(t, func(t *testing.T) { testCurveComputeH(t, BLS12381Fr, ref.BLS12381FFT, newBLSDomain) },
		func(t *testing.T) { testCurveComputeH(t, BN254Fr, ref.BN254FFT, newBNDomain) })
}

// testCurveComputeH: the fused H step against gnark's computeH on the
// curve (ref.HOf), the witness zero-padded as gnark pads it.
func testCurveComputeH[F ~[4]uint64, D any, PF elem[F]](t *testing.T, f *Field[F, D], fft ref.FFT[F, D], newDomain func(uint64) *D) {
	s := stream(t)
	r := rng(t)
	for _, logn := range slices.Compact([]int{1, 10, min(maxLog(), 20)}) {
		n := 1 << logn
		d := newDomain(uint64(n))
		a, b, c := ref.Scalars[F, PF](r, n), ref.Scalars[F, PF](r, n), ref.Scalars[F, PF](r, n)
		for i := n - n/3; i < n; i++ {
			PF(&a[i]).SetZero()
			PF(&b[i]).SetZero()
			PF(&c[i]).SetZero()
		}
		va, vb, vc := uploadOf(t, s, f, a), uploadOf(t, s, f, b), uploadOf(t, s, f, c)
		ref.HOf[F, PF](fft, a, b, c, d)
		if err := f.ComputeH(context.Background(), s, va, vb, vc, d); err != nil {
			t.Fatal(err)
		}
		equalOf[F, PF](t, "h", downloadOf(t, s, f, va), a)
		t.Logf("%s h 2^%d ok", f.Curve(), logn)
	}
}

// inputs are n random points of g and scalars of its curve with the
// edges when n >= 16: scalars 0, 1, r-1 (twice), equal ones, small ones
// sharing buckets; points infinity, repeated, a point with its negation.
func inputs[F ~[4]uint64, A, J any, PF elem[F], PA affinePoint[A], PJ jacPoint[J, A, F]](r *rand.Rand, g ref.Group[F, A, J], n int) ([]A, []F) {
	p := ref.Points[F, PF, A, J, PJ](r, g, n, 0)
	s := ref.Scalars[F, PF](r, n)
	if n >= 16 {
		PF(&s[0]).SetZero()
		PF(&s[1]).SetOne()
		PF(&s[2]).SetInt64(-1)
		PF(&s[3]).SetInt64(-1)
		s[5] = s[6]
		for i := 8; i < 16; i++ {
			PF(&s[i]).SetUint64(uint64(i % 3))
		}
		p[3] = p[2]
		p[4] = *new(A)
		p[6] = p[5]
		PA(&p[7]).Neg(&p[6])
	}
	return p, s
}

func gnarkMSM[F, A, J any, PJ jacPoint[J, A, F]](t testing.TB, p []A, s []F) J {
	t.Helper()
	var want J
	if _, err := PJ(&want).MultiExp(p, s, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	return want
}

func TestCurvesMSM(t *testing.T) {
	forGroups(t,
		func(t *testing.T) { testCurveMSM(t, BLS12381G1, BLS12381Fr, ref.BLS12381G1) },
		func(t *testing.T) { testCurveMSM(t, BLS12381G2, BLS12381Fr, ref.BLS12381G2) },
		func(t *testing.T) { testCurveMSM(t, BN254G1, BN254Fr, ref.BN254G1) },
		func(t *testing.T) { testCurveMSM(t, BN254G2, BN254Fr, ref.BN254G2) })
}

// testCurveMSM: plain bases at the size's window (and others at 2^10),
// precomputed tables at the table window (the whole table and a prefix
// of its rows), by the XYZZ segments and by the batch-affine levels
// (each group's other accumulation than its default too), against
// gnark-crypto's MultiExp.
func testCurveMSM[F ~[4]uint64, D any, A, J any, PF elem[F], PA affinePoint[A], PJ jacPoint[J, A, F]](t *testing.T, g *Group[F, A, J], f *Field[F, D], rg ref.Group[F, A, J]) {
	r := rng(t)
	ctx := context.Background()
	for _, accum := range []Accum{AccumXYZZ, AccumAffine} {
		d := deviceWith(t, Options{Accum: accum, AffineMax: 1 << 40})
		s := streamOn(t, d)
		for _, logn := range append([]int{0, 4}, sizes(10)...) {
			if logn > 20 {
				break
			}
			n := 1 << logn
			p, sc := inputs[F, A, J, PF, PA, PJ](r, rg, n)
			want := gnarkMSM[F, A, J, PJ](t, p, sc)
			key := g.String() + "-msm-" + strconv.Itoa(logn)
			b, err := g.Load(d, key, p)
			if err != nil {
				t.Fatal(err)
			}
			v := uploadOf(t, s, f, sc)
			windows := []int{Window(n)}
			if logn == 10 {
				windows = append(windows, 5, 13, 16)
			}
			for _, c := range windows {
				if got, err := g.MSMWindow(ctx, s, b, v, n, c); err != nil || !PJ(&got).Equal(&want) {
					t.Fatalf("%s msm 2^%d c=%d (accumulation %d) differs from gnark (%v)", g, logn, c, accum, err)
				}
			}
			tb, err := g.LoadTable(d, key+"-table", p, TableWindow(n))
			if err != nil {
				t.Fatal(err)
			}
			m := max(n-1, 1)
			wantPrefix := gnarkMSM[F, A, J, PJ](t, p[:m], sc[:m])
			for k, w := range map[int]*J{n: &want, m: &wantPrefix} {
				if got, err := g.MSM(ctx, s, tb, v, k); err != nil || !PJ(&got).Equal(w) {
					t.Fatalf("%s msm over a table of 2^%d, first %d (accumulation %d) differs from gnark (%v)", g, logn, k, accum, err)
				}
			}
			if err := d.Evict(key); err != nil {
				t.Fatal(err)
			}
			if err := d.Evict(key + "-table"); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s msm 2^%d, accumulation %d: plain and over a table ok", g, logn, accum)
		}
	}
}

func TestCurvesMSMUnits(t *testing.T) {
	forGroups(t,
		func(t *testing.T) { testCurveMSMUnits(t, BLS12381G1, BLS12381Fr, ref.BLS12381G1) },
		func(t *testing.T) { testCurveMSMUnits(t, BLS12381G2, BLS12381Fr, ref.BLS12381G2) },
		func(t *testing.T) { testCurveMSMUnits(t, BN254G1, BN254Fr, ref.BN254G1) },
		func(t *testing.T) { testCurveMSMUnits(t, BN254G2, BN254Fr, ref.BN254G2) })
}

// testCurveMSMUnits: MSMs over mostly zero or unit scalars (the units
// summed apart, the others gathered: PlanMSM's Sparse), plain and over
// a table, at mixes on both sides of the half that decides, units alone
// and zeros alone, against gnark-crypto; the plan's counts checked.
func testCurveMSMUnits[F ~[4]uint64, D any, A, J any, PF elem[F], PA affinePoint[A], PJ jacPoint[J, A, F]](t *testing.T, g *Group[F, A, J], f *Field[F, D], rg ref.Group[F, A, J]) {
	s := stream(t)
	d := device(t)
	r := rng(t)
	ctx := context.Background()
	n := 1 << max(16, min(maxLog(), 20)) // from countFrom the scalars are counted
	p, sc := inputs[F, A, J, PF, PA, PJ](r, rg, n)
	key := g.String() + "-units"
	b, err := g.Load(d, key, p)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := g.LoadTable(d, key+"-table", p, TableWindow(n))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Evict(key)
	defer d.Evict(key + "-table")
	for _, mix := range [][2]float64{{0.3, 0}, {0.2, 0.5}, {0.68, 0.31}, {0, 1}, {1, 0}} {
		x := slices.Clone(sc)
		nz, units := 0, 0
		for i := range x {
			switch u := r.Float64(); {
			case u < mix[0]:
				PF(&x[i]).SetZero()
			case u < mix[0]+mix[1]/2:
				PF(&x[i]).SetOne()
			case u < mix[0]+mix[1]:
				PF(&x[i]).SetInt64(-1)
			}
			var neg F
			PF(&neg).Neg(&x[i])
			if !PF(&x[i]).IsZero() {
				nz++
			}
			if PF(&x[i]).IsOne() || PF(&neg).IsOne() {
				units++
			}
		}
		v := uploadOf(t, s, f, x)
		plan, err := s.PlanMSM(v, n, 0)
		if err != nil || plan.Nonzero != nz || plan.Units != units || plan.Sparse != (nz-units <= n/2) {
			t.Fatalf("%s, %v zeros and units: plan %+v (%v), want %d nonzero, %d units", g, mix, plan, err, nz, units)
		}
		want := gnarkMSM[F, A, J, PJ](t, p, x)
		for _, bb := range []*Bases[A]{b, tb} {
			if got, err := g.MSM(ctx, s, bb, v, n); err != nil || !PJ(&got).Equal(&want) {
				t.Fatalf("%s msm of 2^%d (table %d), %v zeros and units (%+v): differs from gnark (%v)", g, n, bb.window, mix, plan, err)
			}
		}
		s.Free(v)
		t.Logf("%s 2^%d, %v zeros and units: %+v ok", g, n, mix, plan)
	}
}

func TestCurvesSumsAndHostBases(t *testing.T) {
	forGroups(t,
		func(t *testing.T) { testCurveSums(t, BLS12381G1, BLS12381Fr, ref.BLS12381G1) },
		func(t *testing.T) { testCurveSums(t, BLS12381G2, BLS12381Fr, ref.BLS12381G2) },
		func(t *testing.T) { testCurveSums(t, BN254G1, BN254Fr, ref.BN254G1) },
		func(t *testing.T) { testCurveSums(t, BN254G2, BN254Fr, ref.BN254G2) })
}

// testCurveSums: batch sums of resident and host bases (infinity,
// repeated points, a point and its negation among them) against adding
// the points one at a time, and the MSM over host bases in chunks
// against gnark-crypto.
func testCurveSums[F ~[4]uint64, D any, A, J any, PF elem[F], PA affinePoint[A], PJ jacPoint[J, A, F]](t *testing.T, g *Group[F, A, J], f *Field[F, D], rg ref.Group[F, A, J]) {
	s := stream(t)
	d := device(t)
	r := rng(t)
	ctx := context.Background()
	n := 1 << 12
	p, sc := inputs[F, A, J, PF, PA, PJ](r, rg, n)
	b, err := g.Load(d, g.String()+"-sum", p)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Evict(g.String() + "-sum")
	for _, m := range []int{0, 1, 3, 1000, 50000} {
		idx := make([]int32, m)
		for i := range idx {
			idx[i] = int32(r.IntN(n))
		}
		if m > 4 {
			idx[0], idx[1], idx[2], idx[3] = 4, 2, 3, 7 // infinity, a repeated point, a negation
		}
		want := g.host.Infinity()
		for _, i := range idx {
			PJ(&want).AddMixed(&p[i])
		}
		got, err := g.Sum(ctx, s, b, idx)
		if err != nil || !PJ(&got).Equal(&want) {
			t.Fatalf("%s sum of %d differs (%v)", g, m, err)
		}
		got, err = g.SumHost(ctx, s, p, idx, 777)
		if err != nil || !PJ(&got).Equal(&want) {
			t.Fatalf("%s sum of %d host bases in chunks differs (%v)", g, m, err)
		}
	}
	want := gnarkMSM[F, A, J, PJ](t, p, sc)
	v := uploadOf(t, s, f, sc)
	if got, err := g.MSMHost(ctx, s, p, v, n, 1000); err != nil || !PJ(&got).Equal(&want) {
		t.Fatalf("%s msm over host bases in chunks differs (%v)", g, err)
	}
}

func TestCurvesMulGenerator(t *testing.T) {
	forGroups(t,
		func(t *testing.T) { testCurveMulGenerator(t, BLS12381G1, ref.BLS12381G1) },
		func(t *testing.T) { testCurveMulGenerator(t, BLS12381G2, ref.BLS12381G2) },
		func(t *testing.T) { testCurveMulGenerator(t, BN254G1, ref.BN254G1) },
		func(t *testing.T) { testCurveMulGenerator(t, BN254G2, ref.BN254G2) })
}

// testCurveMulGenerator: the fixed-base kernels against gnark-crypto's
// batch multiplication of the generator, edge scalars (0, 1, r-1, 2,
// r-2) first, across chunk boundaries (a chunk of 1000 scalars), and at
// 2^maxLog (at most 2^20).
func testCurveMulGenerator[F ~[4]uint64, A comparable, J any, PF elem[F]](t *testing.T, g *Group[F, A, J], rg ref.Group[F, A, J]) {
	s := stream(t)
	r := rng(t)
	sc := make([]F, 2500)
	PF(&sc[1]).SetOne()
	PF(&sc[2]).SetInt64(-1)
	PF(&sc[3]).SetUint64(2)
	PF(&sc[4]).SetInt64(-2)
	copy(sc[5:], ref.Scalars[F, PF](r, len(sc)-5))
	defer func(c int) { fixedChunk = c }(fixedChunk)
	for _, chunk := range []int{1000, 1 << 22} {
		fixedChunk = chunk
		if chunk > len(sc) {
			sc = ref.Scalars[F, PF](r, 1<<min(maxLog(), 20))
		}
		got := make([]A, len(sc))
		if err := g.MulGenerator(context.Background(), s, got, sc); err != nil {
			t.Fatal(err)
		}
		want := rg.MulGenerator(sc)
		for i := range sc {
			if got[i] != want[i] {
				t.Fatalf("%s: point %d of %d differs", g, i, len(sc))
			}
		}
		t.Logf("%s: %d points equal gnark-crypto's", g, len(sc))
	}
}
