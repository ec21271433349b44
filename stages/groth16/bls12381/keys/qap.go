package keys

import (
	"math/big"
	"runtime"
	"sync"

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
//
// The constraints are shared out over the cores in runs of instructions
// (gnark's iterator is one pass; a run is decompressed the way it
// decompresses). A run owns the wires created during it: a constraint
// refers only to wires created before the next instruction, so a run's
// sums go straight into the result for its own wires, and into the run's
// colSums for older ones (the previous foreignWindow wires densely, the
// rest in a map); those are added in once every run is done. Field
// additions being exact, the result is the one-pass sum's whatever the
// runs (TestColumnsOverRunsAreTheOnePassColumns).
func columns(sys *cs.R1CS, L []fr.Element, nbWires int) (A, B, C []fr.Element) {
	A = make([]fr.Element, nbWires)
	B = make([]fr.Element, nbWires)
	C = make([]fr.Element, nbWires)
	ins := sys.Instructions
	runs := min(columnsMaxRuns, max(1, len(ins)/columnsMinRun))
	per := (len(ins) + runs - 1) / max(runs, 1)
	sums := make([]colSums, runs)
	var wg sync.WaitGroup
	for r := range sums {
		lo, hi := min(r*per, len(ins)), min((r+1)*per, len(ins))
		if lo == hi {
			continue
		}
		own := [2]int{int(ins[lo].WireOffset), nbWires}
		if hi < len(ins) {
			own[1] = int(ins[hi].WireOffset)
		}
		if r == 0 {
			own[0] = 0 // the inputs too: no run before it
		}
		sums[r] = colSums{own: own, base: max(own[0]-foreignWindow, 0)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[r].add(sys, L, ins[lo:hi], [3][]fr.Element{A, B, C})
		}()
	}
	wg.Wait()
	for r := range sums {
		sums[r].addInto([3][]fr.Element{A, B, C})
	}
	return A, B, C
}

// columnsMinRun is the fewest instructions worth a run of their own, and
// columnsMaxRuns the most runs (one a core; more in tests).
var (
	columnsMinRun  = 1 << 14
	columnsMaxRuns = runtime.GOMAXPROCS(0)
)

// foreignWindow is how many wires below its own a run sums densely.
var foreignWindow = 1 << 16

// colSums is one run's part of columns: the sums for wires it does not
// own, the wires in [base, own[0]) densely in near, any other in far.
type colSums struct {
	own  [2]int
	base int
	near [3][]fr.Element
	far  map[uint32]*[3]fr.Element
}

// add adds the constraints of the instructions ins to the result res
// (A, B, C) for the run's own wires and to s for the others.
func (s *colSums) add(sys *cs.R1CS, L []fr.Element, ins []constraint.PackedInstruction, res [3][]fr.Element) {
	var c constraint.R1C
	for _, in := range ins {
		bc, ok := sys.Blueprints[in.BlueprintID].(constraint.BlueprintR1C)
		if !ok {
			continue
		}
		bc.DecompressR1C(&c, in.Unpack(&sys.System))
		l := &L[in.ConstraintOffset]
		for k, side := range [3]constraint.LinearExpression{c.L, c.R, c.O} {
			for _, t := range side {
				addTerm(s.slot(res, k, t.WireID()), t, l, sys.Coefficients)
			}
		}
	}
}

// slot is where a term of wire w on side k (0 L, 1 R, 2 O) is summed.
func (s *colSums) slot(res [3][]fr.Element, k, w int) *fr.Element {
	if w >= s.own[0] && w < s.own[1] {
		return &res[k][w]
	}
	if w >= s.base && w < s.own[0] {
		if s.near[k] == nil {
			s.near[k] = make([]fr.Element, s.own[0]-s.base)
		}
		return &s.near[k][w-s.base]
	}
	if s.far == nil {
		s.far = make(map[uint32]*[3]fr.Element)
	}
	e := s.far[uint32(w)]
	if e == nil {
		e = new([3]fr.Element)
		s.far[uint32(w)] = e
	}
	return &e[k]
}

// addInto adds the run's sums for wires it does not own to res.
func (s *colSums) addInto(res [3][]fr.Element) {
	for k := range s.near {
		for i := range s.near[k] {
			res[k][s.base+i].Add(&res[k][s.base+i], &s.near[k][i])
		}
	}
	for w, e := range s.far {
		for k := range e {
			res[k][w].Add(&res[k][w], &e[k])
		}
	}
}

// addTerm adds t's coefficient times l to res.
func addTerm(res *fr.Element, t constraint.Term, l *fr.Element, coeffs []fr.Element) {
	var p fr.Element
	switch id := t.CoeffID(); id {
	case constraint.CoeffIdZero:
	case constraint.CoeffIdOne:
		res.Add(res, l)
	case constraint.CoeffIdMinusOne:
		res.Sub(res, l)
	case constraint.CoeffIdTwo:
		p.Double(l)
		res.Add(res, &p)
	default:
		p.Mul(&coeffs[id], l)
		res.Add(res, &p)
	}
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
