// Package points converts the device's point representations to
// gnark-crypto's, for every curve the kernels are built for: XYZZ
// accumulators (x = X/ZZ, y = Y/ZZZ, Montgomery form, laid out exactly
// as the device writes them) to Jacobian points, the per-window sums of
// a Pippenger MSM to the final result, the fixed-base kernels' tables,
// and the constants an NTT domain gives the device.
//
// Each group of each curve is a value of Group (BLS12381G1, ..., BN254G2)
// and each scalar field one of Scalars (BLS12381Fr, BN254Fr): one
// generic implementation over gnark-crypto's types, instantiated a
// curve; the device's memory reaches them as 64-bit words.
package points

import (
	"math/big"
	"sync"
	"unsafe"
)

// XYZZ is the device's accumulator over the coordinates' field E
// (fp.Element for G1, E2 for G2): x = X/ZZ, y = Y/ZZZ, infinity ZZ = 0.
type XYZZ[E any] struct{ X, Y, ZZ, ZZZ E }

// field is what a group's coordinates need of gnark-crypto's fp.Element
// and E2.
type field[E any] interface {
	*E
	Mul(x, y *E) *E
	Square(x *E) *E
	IsZero() bool
	SetOne() *E
}

// jacobian is what a group needs of gnark-crypto's Jacobian points.
type jacobian[J, A any] interface {
	*J
	DoubleAssign() *J
	AddAssign(q *J) *J
	FromAffine(a *A) *J
	ScalarMultiplication(p *J, s *big.Int) *J
}

// Group is one group (G1 or G2) of one curve on the host side of the
// kernels: A its affine points (gnark-crypto's, the device's bases), J
// its Jacobian points (results).
type Group[A, J any] interface {
	// Curve is api.h's pl_curve id.
	Curve() int
	// Name is "g1" or "g2".
	Name() string
	// PointBytes is an affine point's size, XYZZBytes an accumulator's.
	PointBytes() int
	XYZZBytes() int
	// Infinity is the Jacobian point at infinity.
	Infinity() J
	// Jac is the Jacobian form of the accumulator in xyzz (XYZZBytes of
	// device memory): Z = ZZ·ZZZ, X = X·ZZ·ZZZ², Y = Y·ZZ³·ZZZ².
	Jac(xyzz []uint64) J
	// Combine is sum_w 2^(c·w)·windows[w] of the accumulators in windows.
	Combine(windows []uint64, c int) J
	// Sum is the sum of the accumulators in xyzz.
	Sum(xyzz []uint64) J
	// AddAssign sets *acc = *acc + *q.
	AddAssign(acc, q *J)
	// FixedTable is the table of the generator's multiples that the
	// fixed-base kernels (csrc/fixed.cuh) read for c-bit signed digits:
	// entry w·2^(c-1) + m - 1 is m·2^(c·w)·g, for w < ceil(256/c) and
	// 1 <= m <= 2^(c-1). Computed with gnark-crypto, one goroutine a
	// window; the table of each c is computed once.
	FixedTable(c int) []A
}

type group[E any, PE field[E], A any, J any, PJ jacobian[J, A]] struct {
	curve    int
	name     string
	gen      func() A
	jac      func(x, y, z E) J
	toAffine func([]J) []A

	mu     sync.Mutex
	tables map[int][]A
}

func (g *group[E, PE, A, J, PJ]) Curve() int      { return g.curve }
func (g *group[E, PE, A, J, PJ]) Name() string    { return g.name }
func (g *group[E, PE, A, J, PJ]) PointBytes() int { return int(unsafe.Sizeof(*new(A))) }
func (g *group[E, PE, A, J, PJ]) XYZZBytes() int  { return int(unsafe.Sizeof(XYZZ[E]{})) }

func (g *group[E, PE, A, J, PJ]) Infinity() J {
	var one, zero E
	PE(&one).SetOne()
	return g.jac(one, one, zero)
}

// accumulators is the device memory in w as XYZZ values.
func (g *group[E, PE, A, J, PJ]) accumulators(w []uint64) []XYZZ[E] {
	n := len(w) * 8 / g.XYZZBytes()
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*XYZZ[E])(unsafe.Pointer(&w[0])), n)
}

func (g *group[E, PE, A, J, PJ]) Jac(xyzz []uint64) J {
	return g.jacOf(&g.accumulators(xyzz)[0])
}

func (g *group[E, PE, A, J, PJ]) jacOf(p *XYZZ[E]) J {
	if PE(&p.ZZ).IsZero() {
		return g.Infinity()
	}
	var x, y, z, zzz2, zz3 E
	PE(&zzz2).Square(&p.ZZZ)
	PE(&zz3).Square(&p.ZZ)
	PE(&zz3).Mul(&zz3, &p.ZZ)
	PE(&z).Mul(&p.ZZ, &p.ZZZ)
	PE(&x).Mul(&p.X, &p.ZZ)
	PE(&x).Mul(&x, &zzz2)
	PE(&y).Mul(&p.Y, &zz3)
	PE(&y).Mul(&y, &zzz2)
	return g.jac(x, y, z)
}

func (g *group[E, PE, A, J, PJ]) Combine(windows []uint64, c int) J {
	ws := g.accumulators(windows)
	acc := g.Infinity()
	for w := len(ws) - 1; w >= 0; w-- {
		for i := 0; i < c; i++ {
			PJ(&acc).DoubleAssign()
		}
		j := g.jacOf(&ws[w])
		PJ(&acc).AddAssign(&j)
	}
	return acc
}

func (g *group[E, PE, A, J, PJ]) Sum(xyzz []uint64) J {
	acc := g.Infinity()
	for _, p := range g.accumulators(xyzz) {
		j := g.jacOf(&p)
		PJ(&acc).AddAssign(&j)
	}
	return acc
}

func (g *group[E, PE, A, J, PJ]) AddAssign(acc, q *J) { PJ(acc).AddAssign(q) }

func (g *group[E, PE, A, J, PJ]) FixedTable(c int) []A {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t, ok := g.tables[c]; ok {
		return t
	}
	gen := g.gen()
	windows, half := (256+c-1)/c, 1<<(c-1)
	t := make([]A, windows*half)
	var wg sync.WaitGroup
	for w := range windows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var base, acc J
			PJ(&base).FromAffine(&gen)
			PJ(&base).ScalarMultiplication(&base, new(big.Int).Lsh(big.NewInt(1), uint(c*w)))
			jac := make([]J, half)
			acc = base
			for m := range jac {
				jac[m] = acc
				PJ(&acc).AddAssign(&base)
			}
			copy(t[w*half:(w+1)*half], g.toAffine(jac))
		}()
	}
	wg.Wait()
	if g.tables == nil {
		g.tables = map[int][]A{}
	}
	g.tables[c] = t
	return t
}

// affine is what perPoint needs of gnark-crypto's affine points.
type affine[A, J any] interface {
	*A
	FromJacobian(p *J) *A
}

// perPoint converts points to affine one at a time (gnark-crypto has no
// batch conversion of G2 points).
func perPoint[A any, PA affine[A, J], J any](jac []J) []A {
	out := make([]A, len(jac))
	for i := range jac {
		PA(&out[i]).FromJacobian(&jac[i])
	}
	return out
}

// scalar is what Scalars needs of gnark-crypto's fr.Element: four
// 64-bit limbs and the field's operations.
type scalar[F any] interface {
	*F
	SetOne() *F
	Sub(x, y *F) *F
	Inverse(x *F) *F
	Exp(x F, k *big.Int) *F
}

// Scalars is one curve's scalar field on the host side of the kernels:
// F its elements, D gnark-crypto's fft.Domain over them.
type Scalars[F, D any] interface {
	// Curve is api.h's pl_curve id.
	Curve() int
	// DomainWords returns the constants the device needs for domain d, in
	// Montgomery form: omega, omega^-1, g, g^-1, 1/n and den = (g^n - 1)^-1,
	// computed exactly as gnark's groth16 computeH does.
	DomainWords(d *D) [6][4]uint64
	// Cardinality is d's size.
	Cardinality(d *D) uint64
}

// domainOf is a domain's generator and its inverse, the coset's
// generator and its inverse, 1/n and n (gnark-crypto's fft.Domain
// fields).
type domainOf[F, D any] func(d *D) (gen, genInv, coset, cosetInv, nInv F, n uint64)

type scalars[F ~[4]uint64, PF scalar[F], D any] struct {
	curve  int
	domain domainOf[F, D]
}

func (s scalars[F, PF, D]) Curve() int { return s.curve }

func (s scalars[F, PF, D]) Cardinality(d *D) uint64 {
	_, _, _, _, _, n := s.domain(d)
	return n
}

func (s scalars[F, PF, D]) DomainWords(d *D) [6][4]uint64 {
	gen, genInv, coset, cosetInv, nInv, n := s.domain(d)
	var den, one F
	PF(&one).SetOne()
	PF(&den).Exp(coset, new(big.Int).SetUint64(n))
	PF(&den).Sub(&den, &one)
	PF(&den).Inverse(&den)
	return [6][4]uint64{[4]uint64(gen), [4]uint64(genInv), [4]uint64(coset), [4]uint64(cosetInv), [4]uint64(nInv), [4]uint64(den)}
}
