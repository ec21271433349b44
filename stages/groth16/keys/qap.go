package keys

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/internal/split"
)

func bigUint(n uint64) *big.Int { return new(big.Int).SetUint64(n) }

// lagrangeAt returns the first m Lagrange basis polynomials of domain
// evaluated at tau: Lᵢ(τ) = (τⁿ - 1)/n · ωⁱ/(τ - ωⁱ), for i < m, τ not on
// the domain. The values are gnark's setup's (its recurrence gives the
// same field elements); the chunks run on every core.
func lagrangeAt(domain *fft.Domain, tau fr.Element, m int) []fr.Element {
	var c, one fr.Element
	one.SetOne()
	c.Exp(tau, bigUint(domain.Cardinality)).Sub(&c, &one).Mul(&c, &domain.CardinalityInv)
	L := make([]fr.Element, m)
	parallel(m, func(lo, hi int) {
		// L[i] holds ωⁱ for now, then τ - ωⁱ is inverted in place.
		var wi fr.Element
		wi.Exp(domain.Generator, bigUint(uint64(lo)))
		den := make([]fr.Element, hi-lo)
		for i := lo; i < hi; i++ {
			L[i] = wi
			den[i-lo].Sub(&tau, &wi)
			wi.Mul(&wi, &domain.Generator)
		}
		inv := fr.BatchInvert(den)
		for i := lo; i < hi; i++ {
			L[i].Mul(&L[i], &inv[i-lo]).Mul(&L[i], &c)
		}
	})
	return L
}

// columns evaluates the QAP's polynomials at τ for every wire: A[w] is
// Σ over the constraints j of (the coefficient of wire w in j's left
// side)·Lⱼ(τ), B and C the same of the right side and the output.
func columns(sys *cs.R1CS, L []fr.Element, nbWires int) (A, B, C []fr.Element) {
	A = make([]fr.Element, nbWires)
	B = make([]fr.Element, nbWires)
	C = make([]fr.Element, nbWires)
	add := func(res *fr.Element, t constraint.Term, l *fr.Element) {
		var p fr.Element
		switch id := t.CoeffID(); id {
		case constraint.CoeffIdZero:
			return
		case constraint.CoeffIdOne:
			res.Add(res, l)
		case constraint.CoeffIdMinusOne:
			res.Sub(res, l)
		case constraint.CoeffIdTwo:
			p.Double(l)
			res.Add(res, &p)
		default:
			p.Mul(&sys.Coefficients[id], l)
			res.Add(res, &p)
		}
	}
	j := 0
	it := sys.GetR1CIterator()
	for c := it.Next(); c != nil; c = it.Next() {
		l := &L[j]
		for _, t := range c.L {
			add(&A[t.WireID()], t, l)
		}
		for _, t := range c.R {
			add(&B[t.WireID()], t, l)
		}
		for _, t := range c.O {
			add(&C[t.WireID()], t, l)
		}
		j++
	}
	return A, B, C
}

// powersTimes returns c·τⁱ for i < n.
func powersTimes(c, tau fr.Element, n int) []fr.Element {
	out := make([]fr.Element, n)
	parallel(n, func(lo, hi int) {
		var p fr.Element
		p.Exp(tau, bigUint(uint64(lo))).Mul(&p, &c)
		for i := lo; i < hi; i++ {
			out[i] = p
			p.Mul(&p, &tau)
		}
	})
	return out
}

// parallel runs f over [0, n) in one chunk a core (at least 4096
// elements a chunk).
func parallel(n int, f func(lo, hi int)) { split.Run(n, 4096, f) }
