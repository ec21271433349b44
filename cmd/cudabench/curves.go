//go:build cuda

package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/ref"
)

// bench is the timings of one curve (-curve): its kernels (cuda's Field
// and Groups), its references (internal/ref, gnark-crypto) and what the
// dump writes of its points. F is its scalars, D its fft.Domain, A1 J1
// and A2 J2 its G1 and G2 points.
type bench[F ~[4]uint64, D, A1, J1, A2, J2 any] struct {
	fr        *cuda.Field[F, D]
	g1        *cuda.Group[F, A1, J1]
	g2        *cuda.Group[F, A2, J2]
	rg1       ref.Group[F, A1, J1]
	rg2       ref.Group[F, A2, J2]
	fft       ref.FFT[F, D]
	newDomain func(n uint64) *D
	// omega is a domain's generator (its n-th root of unity).
	omega func(d *D) F
	// xy1, xy2: a result's affine coordinates, canonical big-endian
	// ((0, 0) at infinity; G2's c0 then c1 each), for `result` lines.
	xy1 func(p *J1) (x, y []byte)
	xy2 func(p *J2) (x, y []byte)
}

// The curves -curve names.
var (
	bls12381Bench = bench[blsfr.Element, blsfft.Domain, bls.G1Affine, bls.G1Jac, bls.G2Affine, bls.G2Jac]{
		fr: cuda.BLS12381Fr, g1: cuda.BLS12381G1, g2: cuda.BLS12381G2,
		rg1: ref.BLS12381G1, rg2: ref.BLS12381G2, fft: ref.BLS12381FFT,
		newDomain: func(n uint64) *blsfft.Domain { return blsfft.NewDomain(n) },
		omega:     func(d *blsfft.Domain) blsfr.Element { return d.Generator },
		xy1: func(p *bls.G1Jac) (x, y []byte) {
			var a bls.G1Affine
			a.FromJacobian(p)
			bx, by := a.X.Bytes(), a.Y.Bytes()
			return bx[:], by[:]
		},
		xy2: func(p *bls.G2Jac) (x, y []byte) {
			var a bls.G2Affine
			a.FromJacobian(p)
			x0, x1, y0, y1 := a.X.A0.Bytes(), a.X.A1.Bytes(), a.Y.A0.Bytes(), a.Y.A1.Bytes()
			return append(x0[:], x1[:]...), append(y0[:], y1[:]...)
		},
	}
	bn254Bench = bench[bnfr.Element, bnfft.Domain, bn254.G1Affine, bn254.G1Jac, bn254.G2Affine, bn254.G2Jac]{
		fr: cuda.BN254Fr, g1: cuda.BN254G1, g2: cuda.BN254G2,
		rg1: ref.BN254G1, rg2: ref.BN254G2, fft: ref.BN254FFT,
		newDomain: func(n uint64) *bnfft.Domain { return bnfft.NewDomain(n) },
		omega:     func(d *bnfft.Domain) bnfr.Element { return d.Generator },
		xy1: func(p *bn254.G1Jac) (x, y []byte) {
			var a bn254.G1Affine
			a.FromJacobian(p)
			bx, by := a.X.Bytes(), a.Y.Bytes()
			return bx[:], by[:]
		},
		xy2: func(p *bn254.G2Jac) (x, y []byte) {
			var a bn254.G2Affine
			a.FromJacobian(p)
			x0, x1, y0, y1 := a.X.A0.Bytes(), a.X.A1.Bytes(), a.Y.A0.Bytes(), a.Y.A1.Bytes()
			return append(x0[:], x1[:]...), append(y0[:], y1[:]...)
		},
	}
)

// scalar is what the timings need of gnark-crypto's fr.Element.
type scalar[F any] interface {
	*F
	SetBytes([]byte) *F
	SetOne() *F
	SetZero() *F
	SetInt64(int64) *F
	Exp(x F, k *big.Int) *F
	Mul(x, y *F) *F
	Sub(x, y *F) *F
	Inverse(x *F) *F
	Bits() [4]uint64
	Bytes() [32]byte
}

// jacobian is what they need of gnark-crypto's Jacobian points.
type jacobian[J, A, F any] interface {
	*J
	Equal(*J) bool
	MultiExp([]A, []F, ecc.MultiExpConfig) (*J, error)
	AddMixed(*A) *J
	FromAffine(*A) *J
}

// run times the curve's kernels as the flags say and adds the rows.
func run[F ~[4]uint64, D, A1, J1, A2, J2 any, PF scalar[F], PJ1 jacobian[J1, A1, F], PJ2 jacobian[J2, A2, F]](
	ctx context.Context, c bench[F, D, A1, J1, A2, J2], d *cuda.Device, s *cuda.Stream, r *rand.Rand) {
	for _, l := range logs(*nttLogs) {
		benchNTT[F, D, A1, J1, A2, J2, PF](ctx, c, s, r, l)
	}
	for _, l := range logs(*frMul) {
		const iters = 256
		n := 1 << l
		v, err := c.fr.Alloc(s, n)
		must(err)
		must(c.fr.Upload(s, v, ref.Scalars[F, PF](r, n), false))
		t, err := median(*reps, func() error {
			if err := s.FrSquarings(v, iters); err != nil {
				return err
			}
			return s.Sync()
		})
		must(err)
		add("fr mul (256 a thread)", l, t, 0, fmt.Sprintf("%.1f G mul/s", float64(n)*iters/t.Seconds()/1e9))
		must(s.Free(v))
	}
	for _, l := range logs(*g1Logs) {
		benchMSM[F, D, A1, J1, PF, PJ1](ctx, c.fr, c.g1, c.rg1, c.xy1, d, s, r, l, logs(*windows), logs(*tables), *reps)
	}
	for _, l := range logs(*sums) {
		benchSum[F, A1, J1, PF, PJ1](ctx, c.g1, c.rg1, d, s, r, l)
	}
	for _, l := range logs(*g2Logs) {
		benchMSM[F, D, A2, J2, PF, PJ2](ctx, c.fr, c.g2, c.rg2, c.xy2, d, s, r, l, logs(*windows2), logs(*tables2), max(*reps/2, 1))
	}
}

// benchNTT times the forward DIF NTT of 2^l elements (with gnark-crypto
// on the host when -cpu), the other orders with -nttall, and the H step.
func benchNTT[F ~[4]uint64, D, A1, J1, A2, J2 any, PF scalar[F]](ctx context.Context, c bench[F, D, A1, J1, A2, J2], s *cuda.Stream, r *rand.Rand, l int) {
	n := 1 << l
	dom := c.newDomain(uint64(n))
	x := ref.Scalars[F, PF](r, n)
	dumpNTT[F, D, A1, J1, A2, J2, PF](c, s, dom, l, x)
	v, err := c.fr.Alloc(s, n)
	must(err)
	must(c.fr.Upload(s, v, x, false))
	must(c.fr.FFT(s, v, dom, true, false)) // warm-up: tables
	must(s.Sync())
	tg, err := median(*reps, func() error {
		if err := c.fr.FFT(s, v, dom, true, false); err != nil {
			return err
		}
		return s.Sync()
	})
	must(err)
	var tc time.Duration
	if *cpu {
		y := slices.Clone(x)
		tc, _ = median(3, func() error { y = c.fft.Transform(y, dom, false, true, false); return nil })
	}
	add("ntt fwd DIF", l, tg, tc, "")
	// the NTT of x once more, for the A/B runs' comparison of results
	must(c.fr.Upload(s, v, x, false))
	must(c.fr.FFT(s, v, dom, true, false))
	y := make([]F, n)
	must(c.fr.Download(s, y, v))
	must(s.Sync())
	fmt.Fprintf(os.Stderr, "result ntt %d %x\n", n, sha256.Sum256(rawBytes(y)))
	if *nttAll {
		for _, o := range nttOrders {
			ntt := c.fr.FFT
			if o.inverse {
				ntt = c.fr.FFTInverse
			}
			run := func() error {
				if err := ntt(s, v, dom, o.dif, false); err != nil {
					return err
				}
				return s.Sync()
			}
			must(run()) // warm-up: the inverse's tables
			t, err := median(*reps, run)
			must(err)
			add(o.op, l, t, 0, "")
		}
	}
	vb, err := c.fr.Alloc(s, n)
	must(err)
	vc, err := c.fr.Alloc(s, n)
	must(err)
	must(c.fr.Upload(s, vb, x, false))
	must(c.fr.Upload(s, vc, x, false))
	th, err := median(*reps, func() error {
		if err := c.fr.ComputeH(ctx, s, v, vb, vc, dom); err != nil {
			return err
		}
		return s.Sync()
	})
	must(err)
	var tch time.Duration
	if *cpu {
		a, b, cc := slices.Clone(x), slices.Clone(x), slices.Clone(x)
		t0 := time.Now()
		ref.HOf[F, PF](c.fft, a, b, cc, dom)
		tch = time.Since(t0)
	}
	add("groth16 H (7 NTTs)", l, th, tch, "")
	s.Free(v)
	s.Free(vb)
	s.Free(vc)
	must(s.Sync())
}

// benchMSM times the MSMs of 2^l terms of a group (benchWindows), prints
// its result line (and dumps its inputs with -dump), then over each of
// tables' precomputed tables (benchTable).
func benchMSM[F ~[4]uint64, D, A, J any, PF scalar[F], PJ jacobian[J, A, F]](ctx context.Context, fr *cuda.Field[F, D], g *cuda.Group[F, A, J], rg ref.Group[F, A, J],
	xy func(*J) (x, y []byte), d *cuda.Device, s *cuda.Stream, r *rand.Rand, l int, extra, tables []int, reps int) {
	n := 1 << l
	pts := ref.Points[F, PF, A, J, PJ](r, rg, n, *distinct)
	sc := msmScalars[F, PF](r, n)
	key := fmt.Sprintf("bench-%d", l)
	b, err := g.Load(d, key, pts)
	must(err)
	v, err := fr.Alloc(s, n)
	must(err)
	must(fr.Upload(s, v, sc, false))
	var got J
	plan, err := s.PlanMSM(v, n, 0)
	must(err)
	name := "msm " + groupName(g.String())
	benchWindows(d, name, l, plan, extra, reps, g.XYZZBytes(),
		func(c int) (err error) {
			if c == 0 {
				got, err = g.MSM(ctx, s, b, v, n)
			} else {
				got, err = g.MSMWindow(ctx, s, b, v, n, c)
			}
			return err
		},
		func() (time.Duration, bool) {
			var want J
			t0 := time.Now()
			PJ(&want).MultiExp(pts, sc, ecc.MultiExpConfig{})
			return time.Since(t0), PJ(&want).Equal(&got)
		})
	x, y := xy(&got)
	dumpInputs[F, PF](groupID(g.String()), l, rawBytes(pts), sc, x, y)
	for _, c := range tables {
		benchTable(name+" table", l, c, func() (func() error, func() bool, func() error, error) {
			tkey := fmt.Sprintf("bench-%d-t%d", l, c)
			t, err := g.LoadTable(d, tkey, pts, c)
			if err != nil {
				return nil, nil, nil, err
			}
			var res J
			run := func() (err error) { res, err = g.MSM(ctx, s, t, v, n); return err }
			return run, func() bool { return PJ(&res).Equal(&got) }, func() error { return d.Evict(tkey) }, nil
		})
	}
	must(d.Evict(key))
	s.Free(v)
	must(s.Sync())
}

// benchSum times SumG1 of 2^l indices into a key of 2^l random bases
// (-sum, -sumones), checked against adding the points on the host.
func benchSum[F ~[4]uint64, A, J any, PF scalar[F], PJ jacobian[J, A, F]](ctx context.Context, g *cuda.Group[F, A, J], rg ref.Group[F, A, J], d *cuda.Device, s *cuda.Stream, r *rand.Rand, l int) {
	n := 1 << l
	pts := ref.Points[F, PF, A, J, PJ](r, rg, n, *distinct)
	key := fmt.Sprintf("bench-sum-%d", l)
	b, err := g.Load(d, key, pts)
	must(err)
	idx := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		switch {
		case *sumOnes == 0:
			idx = append(idx, int32(r.IntN(n)))
		case r.Float64() < *sumOnes:
			idx = append(idx, int32(i))
		}
	}
	var got J
	must(func() (err error) { got, err = g.Sum(ctx, s, b, idx); return err }())
	t, err := median(*reps, func() (err error) { got, err = g.Sum(ctx, s, b, idx); return err })
	must(err)
	var want J
	PJ(&want).FromAffine(new(A)) // infinity
	for _, i := range idx {
		PJ(&want).AddMixed(&pts[i])
	}
	note := fmt.Sprintf("%d points, %.2f ns a point", len(idx), float64(t.Nanoseconds())/float64(max(len(idx), 1)))
	if !PJ(&want).Equal(&got) {
		note += " MISMATCH"
	}
	add("sum "+groupName(g.String()), l, t, 0, note)
	must(d.Evict(key))
}

// groupName is "G1" of a group named "<curve> g1"; groupID is "g1".
func groupName(s string) string {
	id := groupID(s)
	return "G" + id[1:]
}

func groupID(s string) string { return s[len(s)-2:] }

// dumpNTT writes x (ntt-L.in) and the device's forward DIF NTT of it
// (ntt-L.out) into -dump's folder and prints the domain's generator, when
// -dump is set. x is left as it was.
func dumpNTT[F ~[4]uint64, D, A1, J1, A2, J2 any, PF scalar[F]](c bench[F, D, A1, J1, A2, J2], s *cuda.Stream, dom *D, l int, x []F) {
	if *dump == "" {
		return
	}
	v, err := c.fr.Alloc(s, len(x))
	must(err)
	must(c.fr.Upload(s, v, x, false))
	must(c.fr.FFT(s, v, dom, true, false))
	y := make([]F, len(x))
	must(c.fr.Download(s, y, v))
	must(s.Free(v))
	must(s.Sync())
	must(writeNTTDump(*dump, l, x, y))
	w := c.omega(dom)
	fmt.Println(omegaLine(uint64(len(x)), PF(&w).Bytes()))
}

// msmScalars is n random scalars, each 0 with probability -zeros, else 1
// or -1 (half each) with probability -units.
func msmScalars[F any, PF scalar[F]](r *rand.Rand, n int) []F {
	sc := ref.Scalars[F, PF](r, n)
	if *zeros > 0 || *units > 0 {
		for i := range sc {
			switch f := r.Float64(); {
			case f < *zeros:
				PF(&sc[i]).SetZero()
			case f < *zeros+*units/2:
				PF(&sc[i]).SetOne()
			case f < *zeros+*units:
				PF(&sc[i]).SetInt64(-1)
			}
		}
	}
	return sc
}
