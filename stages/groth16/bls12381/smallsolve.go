package groth16

import (
	"errors"
	"math/big"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	csolver "github.com/consensys/gnark/constraint/solver"

	"github.com/prooflane/prooflane/internal/split"
)

// A circuit whose wires all hold small integers (sha256: bits, their
// sums and products, 0 and ±1) is solved here in int64 arithmetic, one
// instruction after the other in the order the builder wrote them, and
// the values turned into field elements at the end: the same wires and
// A, B, C as gnark's solver, which spends most of its time on field
// multiplications by small coefficients and on levels of about a hundred
// constraints (one core, sha256 2^26: about 45 s a partition on the
// H200's host). Every value is kept under 2^62 in magnitude; a value,
// coefficient or hint output past that, a division that is not exact, an
// instruction the solver does not know or a constraint not satisfied
// ends the attempt (errNotSmall), and the stage solves with gnark's
// solver instead, which also words any error. Dense circuits (chain,
// mimc) stop at their first input, before any work.

// errNotSmall says the small solver cannot solve this witness exactly.
var errNotSmall = errors.New("not a small-integer witness")

// smallBound is the magnitude every value stays under: two of them add
// without overflowing an int64.
const smallBound = 1 << 62

// smallSystem is an R1CS's coefficient table as integers, made once per
// job (the partitions' synthesize workers share it).
type smallSystem struct {
	once   sync.Once
	coeffs []int64
	// ok says every coefficient is small.
	ok bool
	// hints are the solver's hint functions (gnark's registry and the
	// job's options).
	hints map[csolver.HintID]csolver.Hint
	// gaveUp says a solve of the job stopped past its inputs: the next
	// partitions go to gnark's solver at once. (What stopped it is the
	// system's values, the same in every partition, or an unsatisfied
	// witness, which fails the job anyway.)
	gaveUp atomic.Bool
}

// init reads sys's coefficients and the hints of opts.
func (s *smallSystem) init(sys *cs.R1CS, opts []csolver.Option) {
	s.once.Do(func() {
		cfg, err := csolver.NewConfig(opts...)
		if err != nil {
			return
		}
		s.hints = cfg.HintFunctions
		s.coeffs = make([]int64, len(sys.Coefficients))
		for i := range sys.Coefficients {
			v, ok := smallOf(&sys.Coefficients[i])
			if !ok {
				return
			}
			s.coeffs[i] = v
		}
		s.ok = true
	})
}

// smallOf is x as an integer of magnitude under 2^62 (x or x - r), if it
// is one.
func smallOf(x *fr.Element) (int64, bool) {
	if x.IsUint64() {
		if u := x.Uint64(); u < smallBound {
			return int64(u), true
		}
		return 0, false
	}
	var n fr.Element
	n.Neg(x)
	if n.IsUint64() {
		if u := n.Uint64(); u < smallBound {
			return -int64(u), true
		}
	}
	return 0, false
}

// smallElements are the field elements of -smallTable..smallTable-1 (at
// smallTable+v): most values are bits, ±1 and short sums, and a table
// read is several times faster than SetUint64's Montgomery product.
var smallElements = func() []fr.Element {
	t := make([]fr.Element, 2*smallTable)
	for v := -smallTable; v < smallTable; v++ {
		setSmallSlow(&t[smallTable+v], int64(v))
	}
	return t
}()

const smallTable = 1 << 10

// setSmall sets x to the field element of v.
func setSmall(x *fr.Element, v int64) {
	if v >= -smallTable && v < smallTable {
		*x = smallElements[smallTable+v]
		return
	}
	setSmallSlow(x, v)
}

func setSmallSlow(x *fr.Element, v int64) {
	if v >= 0 {
		x.SetUint64(uint64(v))
		return
	}
	x.SetUint64(uint64(-v))
	x.Neg(x)
}

// mulSmall is a·b when its magnitude is under 2^62.
func mulSmall(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 || lo >= smallBound {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

// addSmall is a+b (each under 2^62) when its magnitude is under 2^62.
func addSmall(a, b int64) (int64, bool) {
	s := a + b
	return s, s > -smallBound && s < smallBound
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// smallSolver is one solve's state.
type smallSolver struct {
	sys    *cs.R1CS
	coeffs []int64
	hints  map[csolver.HintID]csolver.Hint
	values []int64
	solved []bool
	count  int
	// q, in and out are a hint's modulus and integers, reused.
	q       *big.Int
	in, out []*big.Int
}

// eval is the sum of l's terms over solved wires; unknown is the one term
// over an unsolved wire (found says there was one; two fail).
func (s *smallSolver) eval(l constraint.LinearExpression, unknown *constraint.Term, found *bool) (int64, bool) {
	var acc int64
	for i := range l {
		t := &l[i]
		c := s.coeffs[t.CID]
		if t.IsConstant() {
			var ok bool
			if acc, ok = addSmall(acc, c); !ok {
				return 0, false
			}
			continue
		}
		if !s.solved[t.VID] {
			if *found {
				return 0, false
			}
			*unknown, *found = *t, true
			continue
		}
		p, ok := mulSmall(c, s.values[t.VID])
		if !ok {
			return 0, false
		}
		if acc, ok = addSmall(acc, p); !ok {
			return 0, false
		}
	}
	return acc, true
}

// set solves wire id to v.
func (s *smallSolver) set(id uint32, v int64) bool {
	if s.solved[id] {
		return false
	}
	s.values[id], s.solved[id] = v, true
	s.count++
	return true
}

// r1c solves constraint cID, l·r = o, of at most one unknown wire (as
// gnark's solveR1C does), and stores its a, b, c into sol.
func (s *smallSolver) r1c(cID uint32, c *constraint.R1C, sol *Solution) bool {
	var u constraint.Term
	var found bool
	loc := 0
	a, ok := s.eval(c.L, &u, &found)
	if !ok {
		return false
	}
	if found {
		loc = 1
	}
	b, ok := s.eval(c.R, &u, &found)
	if !ok {
		return false
	}
	if found && loc == 0 {
		loc = 2
	}
	o, ok := s.eval(c.O, &u, &found)
	if !ok {
		return false
	}
	if found && loc == 0 {
		loc = 3
	}
	// term is the unknown term's value, coefficient included.
	var term int64
	switch loc {
	case 0:
		ab, ok := mulSmall(a, b)
		if !ok || ab != o {
			return false // not satisfied (or too large): gnark's solver says which
		}
	case 1, 2:
		known, other := a, b
		if loc == 2 {
			known, other = b, a
		}
		if other == 0 || o%other != 0 {
			return false
		}
		if term, ok = addSmall(o/other, -known); !ok {
			return false
		}
		if loc == 1 {
			a += term
		} else {
			b += term
		}
	case 3:
		ab, ok := mulSmall(a, b)
		if !ok {
			return false
		}
		if term, ok = addSmall(ab, -o); !ok {
			return false
		}
		o += term
	}
	if loc != 0 {
		k := s.coeffs[u.CID]
		if k == 0 || term%k != 0 || !s.set(u.VID, term/k) {
			return false
		}
	}
	setSmall(&sol.A[cID], a)
	setSmall(&sol.B[cID], b)
	setSmall(&sol.C[cID], o)
	return true
}

// hint runs h's function on its inputs as big integers and solves its
// outputs, which must be small.
func (s *smallSolver) hint(h *constraint.HintMapping) bool {
	f, ok := s.hints[h.HintID]
	if !ok {
		return false
	}
	s.in = grow(s.in, len(h.Inputs))
	s.out = grow(s.out, int(h.OutputRange.End-h.OutputRange.Start))
	for i, l := range h.Inputs {
		var u constraint.Term
		var found bool
		v, ok := s.eval(l, &u, &found)
		if !ok || found {
			return false
		}
		s.in[i].SetInt64(v)
		if v < 0 {
			s.in[i].Add(s.in[i], s.q)
		}
	}
	for _, x := range s.out {
		x.SetUint64(0)
	}
	if f(s.q, s.in, s.out) != nil {
		return false
	}
	var e fr.Element
	for i, x := range s.out {
		e.SetBigInt(x)
		v, ok := smallOf(&e)
		if !ok || !s.set(h.OutputRange.Start+uint32(i), v) {
			return false
		}
	}
	return true
}

// grow is xs with n integers, reusing those it has.
func grow(xs []*big.Int, n int) []*big.Int {
	for len(xs) < n {
		xs = append(xs, new(big.Int))
	}
	return xs[:n]
}

// solveSmall solves sys for the public and secret values w (gnark's
// witness vector, without the one wire) as the small solver can, into the
// Solution gnark's solver gives: errNotSmall when it cannot.
func solveSmall(sys *cs.R1CS, small *smallSystem, opts []csolver.Option, w fr.Vector) (*Solution, error) {
	// A system with logs (api.Println) or GKR hints is gnark's to solve:
	// it prints the logs, and overrides those hints.
	if len(w)+1 != len(sys.Public)+len(sys.Secret) || len(sys.Logs) > 0 || sys.GkrInfo.Is() {
		return nil, errNotSmall
	}
	// the inputs first: a dense circuit stops here, before the table
	inputs := make([]int64, len(w))
	for i := range w {
		v, ok := smallOf(&w[i])
		if !ok {
			return nil, errNotSmall
		}
		inputs[i] = v
	}
	if small.init(sys, opts); !small.ok || small.gaveUp.Load() {
		return nil, errNotSmall
	}
	nbWires := len(sys.Public) + len(sys.Secret) + sys.NbInternalVariables
	s := smallSolver{sys: sys, coeffs: small.coeffs, hints: small.hints,
		values: make([]int64, nbWires), solved: make([]bool, nbWires)}
	s.set(0, 1) // the one wire
	for i, v := range inputs {
		s.set(uint32(i+1), v)
	}
	m := sys.GetNbConstraints()
	n := ecc.NextPowerOfTwo(uint64(m))
	sol := &Solution{A: make([]fr.Element, m, n), B: make([]fr.Element, m, n), C: make([]fr.Element, m, n)}
	if !s.run(sol) {
		small.gaveUp.Store(true)
		return nil, errNotSmall
	}
	sol.Wires = make([]fr.Element, nbWires)
	split.Run(nbWires, 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			setSmall(&sol.Wires[i], s.values[i])
		}
	})
	return sol, nil
}

// run solves the system's instructions in order into sol's A, B, C and
// the solver's values: false where the small solver stops.
func (s *smallSolver) run(sol *Solution) bool {
	s.q = fr.Modulus()
	return walk(s.sys, func(cID uint32, c *constraint.R1C) bool { return s.r1c(cID, c, sol) }, s.hint) &&
		s.count == len(s.values)
}

// walk runs sys's instructions in the builder's order, each R1C through
// r1c and each hint through hint, as gnark's solver tells them apart (an
// R1C blueprint first, then a solvable one, then a hint): false at the
// first that returns false, at a solvable blueprint (a lookup: gnark's
// solver runs those) and at an instruction of any other kind.
func walk(sys *cs.R1CS, r1c func(cID uint32, c *constraint.R1C) bool, hint func(h *constraint.HintMapping) bool) bool {
	var c constraint.R1C
	var h constraint.HintMapping
	for _, pi := range sys.Instructions {
		inst := pi.Unpack(&sys.System)
		switch b := sys.Blueprints[pi.BlueprintID].(type) {
		case constraint.BlueprintR1C:
			b.DecompressR1C(&c, inst)
			if !r1c(inst.ConstraintOffset, &c) {
				return false
			}
		case constraint.BlueprintSolvable[constraint.U64]:
			return false
		case constraint.BlueprintHint:
			b.DecompressHint(&h, inst)
			if !hint(&h) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
