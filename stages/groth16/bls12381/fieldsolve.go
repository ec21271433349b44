package groth16

import (
	"errors"
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	csolver "github.com/consensys/gnark/constraint/solver"
)

// A circuit of dense field values (chain, mimc, hashes over the field,
// most circuits written with gnark's API) is solved here when gnark's
// solver would run it on one core anyway: gnark's solver goes level by
// level and spreads a level over the cores only when it holds more than
// 50 instructions, and in a circuit such as chain every level holds one.
// The field solver runs the instructions in the builder's order, as the
// small solver does, with field arithmetic, and spends fewer
// multiplications than gnark's: a term over the one wire adds its
// coefficient instead of multiplying it by 1 (chain's L and R each hold
// one), and a hint's integers are reused. It gives way to gnark's solver
// (which then also words any error) at an instruction it does not know
// (a lookup, any solvable blueprint), two unknown wires in a constraint,
// an unknown that a zero would have to solve, a hint that is missing or
// fails, or an unsatisfied constraint; a system with api.Println logs or
// GKR hints, or with most instructions in levels gnark's solver spreads
// over the cores, goes to gnark's solver from the start. What it returns
// is gnark's solution element for element
// (TestTheFieldSolverFindsGnarksSolution).

// errNotField says the field solver leaves this system or witness to
// gnark's solver.
var errNotField = errors.New("not for the field solver")

// wideLevel is the most instructions a level holds that gnark's solver
// still runs on one core (its minWorkPerCPU).
const wideLevel = 50

// fieldSystem is what the field solver reads of an R1CS, made once per
// job (the partitions' synthesize workers share it).
type fieldSystem struct {
	once sync.Once
	// ok says every instruction is one the field solver runs, most of
	// them in levels gnark's solver runs on one core, and the system has
	// no logs or GKR hints.
	ok bool
	// hints are the solver's hint functions (gnark's registry and the
	// job's options).
	hints map[csolver.HintID]csolver.Hint
}

// init reads sys's instructions and the hints of opts.
func (f *fieldSystem) init(sys *cs.R1CS, opts []csolver.Option) {
	f.once.Do(func() {
		if len(sys.Logs) > 0 || sys.GkrInfo.Is() {
			return
		}
		cfg, err := csolver.NewConfig(opts...)
		if err != nil {
			return
		}
		for _, b := range sys.Blueprints {
			switch b.(type) {
			case constraint.BlueprintR1C:
			case constraint.BlueprintSolvable[constraint.U64]:
				return
			case constraint.BlueprintHint:
			default:
				return
			}
		}
		wide := 0
		for _, level := range sys.Levels {
			if len(level) > wideLevel {
				wide += len(level)
			}
		}
		f.hints = cfg.HintFunctions
		f.ok = 2*wide < len(sys.Instructions)
	})
}

// fieldSolver is one solve's state.
type fieldSolver struct {
	coeffs []fr.Element
	hints  map[csolver.HintID]csolver.Hint
	values []fr.Element
	solved []bool
	count  int
	// q, in and out are a hint's modulus and integers, reused.
	q       *big.Int
	in, out []*big.Int
}

// eval sets acc to the sum of l's terms over solved wires; unknown is the
// one term over an unsolved wire (found says there was one; two fail).
func (s *fieldSolver) eval(l constraint.LinearExpression, acc *fr.Element, unknown *constraint.Term, found *bool) bool {
	acc.SetZero()
	var p fr.Element
	for i := range l {
		t := &l[i]
		if t.IsConstant() || t.VID == 0 { // the one wire holds 1
			acc.Add(acc, &s.coeffs[t.CID])
			continue
		}
		if !s.solved[t.VID] {
			if *found {
				return false
			}
			*unknown, *found = *t, true
			continue
		}
		switch t.CID {
		case constraint.CoeffIdZero:
		case constraint.CoeffIdOne:
			acc.Add(acc, &s.values[t.VID])
		case constraint.CoeffIdMinusOne:
			acc.Sub(acc, &s.values[t.VID])
		case constraint.CoeffIdTwo:
			p.Double(&s.values[t.VID])
			acc.Add(acc, &p)
		default:
			p.Mul(&s.coeffs[t.CID], &s.values[t.VID])
			acc.Add(acc, &p)
		}
	}
	return true
}

// set solves wire id to v.
func (s *fieldSolver) set(id uint32, v *fr.Element) bool {
	if s.solved[id] {
		return false
	}
	s.values[id], s.solved[id] = *v, true
	s.count++
	return true
}

// r1c solves constraint cID, l·r = o, of at most one unknown wire, into
// sol's A, B, C, as gnark's solveR1C does.
func (s *fieldSolver) r1c(cID uint32, c *constraint.R1C, sol *Solution) bool {
	a, b, o := &sol.A[cID], &sol.B[cID], &sol.C[cID]
	var u constraint.Term
	var found bool
	loc := 0
	if !s.eval(c.L, a, &u, &found) {
		return false
	}
	if found {
		loc = 1
	}
	if !s.eval(c.R, b, &u, &found) {
		return false
	}
	if found && loc == 0 {
		loc = 2
	}
	if !s.eval(c.O, o, &u, &found) {
		return false
	}
	if found && loc == 0 {
		loc = 3
	}
	// term is the unknown term's value, coefficient included.
	var term fr.Element
	switch loc {
	case 0:
		var ab fr.Element
		return ab.Mul(a, b).Equal(o) // else gnark's solver says which
	case 1, 2:
		known, other := a, b
		if loc == 2 {
			known, other = b, a
		}
		if other.IsZero() {
			return false
		}
		term.Div(o, other).Sub(&term, known)
		known.Add(known, &term)
	case 3:
		term.Mul(a, b).Sub(&term, o)
		o.Add(o, &term)
	}
	switch u.CID {
	case constraint.CoeffIdOne:
	case constraint.CoeffIdMinusOne:
		term.Neg(&term)
	case constraint.CoeffIdZero:
		return false
	default:
		term.Div(&term, &s.coeffs[u.CID])
	}
	return s.set(u.VID, &term)
}

// hint runs h's function on its inputs as big integers and solves its
// outputs.
func (s *fieldSolver) hint(h *constraint.HintMapping) bool {
	f, ok := s.hints[h.HintID]
	if !ok {
		return false
	}
	s.in = grow(s.in, len(h.Inputs))
	s.out = grow(s.out, int(h.OutputRange.End-h.OutputRange.Start))
	var v fr.Element
	for i, l := range h.Inputs {
		var u constraint.Term
		var found bool
		if !s.eval(l, &v, &u, &found) || found {
			return false
		}
		v.BigInt(s.in[i])
	}
	for _, x := range s.out {
		x.SetUint64(0)
	}
	if f(s.q, s.in, s.out) != nil {
		return false
	}
	for i, x := range s.out {
		v.SetBigInt(x)
		if !s.set(h.OutputRange.Start+uint32(i), &v) {
			return false
		}
	}
	return true
}

// solveField solves sys for the public and secret values w (gnark's
// witness vector, without the one wire) as the field solver can, into
// the Solution gnark's solver gives: errNotField when it cannot.
func solveField(sys *cs.R1CS, field *fieldSystem, opts []csolver.Option, w fr.Vector) (*Solution, error) {
	if len(w)+1 != len(sys.Public)+len(sys.Secret) {
		return nil, errNotField
	}
	if field.init(sys, opts); !field.ok {
		return nil, errNotField
	}
	nbWires := len(sys.Public) + len(sys.Secret) + sys.NbInternalVariables
	s := fieldSolver{coeffs: sys.Coefficients, hints: field.hints,
		values: make([]fr.Element, nbWires), solved: make([]bool, nbWires)}
	var one fr.Element
	s.set(0, one.SetOne())
	for i := range w {
		s.set(uint32(i+1), &w[i])
	}
	m := sys.GetNbConstraints()
	n := ecc.NextPowerOfTwo(uint64(m))
	sol := &Solution{A: make([]fr.Element, m, n), B: make([]fr.Element, m, n), C: make([]fr.Element, m, n)}
	if !s.run(sys, sol) {
		return nil, errNotField
	}
	sol.Wires = s.values
	return sol, nil
}

// run solves sys's instructions in order into sol's A, B, C and the
// solver's values: false where the field solver stops.
func (s *fieldSolver) run(sys *cs.R1CS, sol *Solution) bool {
	s.q = fr.Modulus()
	return walk(sys, func(cID uint32, c *constraint.R1C) bool { return s.r1c(cID, c, sol) }, s.hint) &&
		s.count == len(s.values)
}
