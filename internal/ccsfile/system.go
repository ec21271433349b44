package ccsfile

import (
	"errors"
	"fmt"
	"math"

	"github.com/consensys/gnark/constraint"
)

// maxWires bounds the wires of a constraint system: a wire's ID is 32
// bits wide in every instruction that names it, and the widest ID,
// math.MaxUint32, marks a constant term.
const maxWires = math.MaxUint32

// CheckSolvable checks a constraint system gnark decoded from a file
// (CheckLayout passed it) for what gnark's solver, setups and provers
// will index, and for the order the solver runs it in, in the caller's
// goroutine and without arithmetic on wires:
//
//   - the system: the kind asked, a field prooflane proves over (the
//     type's, and the one it declares), no GKR sub-circuit, the
//     coefficient table (fields.go), the commitments' kind;
//   - the instructions, in order (blueprints.go): each blueprint one that
//     gnark's frontends emit into a system of this kind (an unknown one
//     is refused naming its Go type), each instruction's calldata
//     following the previous one's and whole, its wires and
//     coefficients within the system's, its constraints numbered in
//     order;
//   - the commitments (commitments.go): their wires and constraints, and
//     the hint computing each, as the provers index them;
//   - the levels (levels.go): every instruction in exactly one level
//     and, run level by level as the solver runs them (a level's
//     instructions at once), each reading only wires solved by earlier
//     levels and solving only wires not yet solved, no wire solved
//     twice and every wire solved;
//   - the debug entries a failing constraint or a log prints, within the
//     system's tables (debuginfo.go).
//
// A system CheckSolvable passes solves without a panic, whatever the
// witness, when its hints run under solve.RecoverHints: a witness that does
// not satisfy it is an error of the solver's.
func CheckSolvable(sys constraint.ConstraintSystem, kind Kind) error {
	f, s, err := fieldOf(sys)
	if err != nil {
		return err
	}
	if s.Type != kind.systemType() {
		return fmt.Errorf("holds a constraint system of type %s, want %s", systemTypeName(s.Type), kind)
	}
	if err := f.checkScalarField(s); err != nil {
		return err
	}
	if s.GkrInfo.Is() {
		return errors.New("holds a GKR sub-circuit (gnark's std/gkrapi), which prooflane does not prove")
	}
	if err := f.checkCoefficients(sys); err != nil {
		return err
	}
	c := &checker{cs: sys, sys: s, kind: kind, coeffs: uint64(sys.GetNbCoefficients()), inputs: uint64(len(s.Public) + len(s.Secret))}
	if kind == R1CS && len(s.Public) == 0 {
		return errors.New("an R1CS without its constant wire (the first public one)")
	}
	if c.inputs > maxWires || s.NbInternalVariables < 0 || uint64(s.NbInternalVariables) > maxWires-c.inputs {
		return fmt.Errorf("%d public, %d secret and %d internal wires", len(s.Public), len(s.Secret), s.NbInternalVariables)
	}
	c.wires = c.inputs + uint64(s.NbInternalVariables)
	if c.wires == 0 {
		// The solver's result of a SparseR1CS starts with wire 0's value.
		return errors.New("a constraint system without wires")
	}
	for _, check := range []func() error{c.blueprints, c.instructions, c.commitments, c.levels, c.debugInfo} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// systemTypeName names a system type as Kind does.
func systemTypeName(t constraint.SystemType) string {
	switch t {
	case constraint.SystemR1CS:
		return R1CS.String()
	case constraint.SystemSparseR1CS:
		return SparseR1CS.String()
	}
	return fmt.Sprintf("%d", t)
}

// checker is CheckSolvable's state.
type checker struct {
	cs     constraint.ConstraintSystem
	sys    *constraint.System
	kind   Kind
	coeffs uint64
	// inputs are the public and secret wires, the first ones; wires all
	// of them, the internal ones after.
	inputs, wires uint64
	// bps describes each blueprint (blueprints.go).
	bps []blueprint
	// constraints counts the constraints of the instructions.
	constraints uint64
	// commitmentHints are the instructions of the commitments' hints.
	commitmentHints []int
	// solved holds the wires solved by the levels run so far; placed the
	// instructions run.
	solved, placed bitset
}

// instructions checks every instruction, in order: its blueprint, its
// calldata (following the previous instruction's: gnark appends each
// instruction's, and nothing else, to the system's), the constraints it
// is numbered from and, by its blueprint, what the calldata holds. It
// bounds the wires by what the instructions can solve, before the levels
// allocate anything a wire.
func (c *checker) instructions() error {
	sys := c.sys
	var next, solvable uint64
	for i, pi := range sys.Instructions {
		cd, err := c.calldata(pi, next)
		if err == nil && uint64(pi.ConstraintOffset) != c.constraints {
			err = fmt.Errorf("numbered from constraint %d, want %d", pi.ConstraintOffset, c.constraints)
		}
		var n uint64
		if err == nil {
			n, err = c.shape(i, pi, cd)
		}
		if err != nil {
			return c.instructionError(i, err)
		}
		solvable += n
		c.constraints += c.bps[pi.BlueprintID].kind.constraints()
		next += uint64(len(cd))
	}
	if next != uint64(len(sys.CallData)) {
		return fmt.Errorf("calldata: %d words, its instructions' end at %d", len(sys.CallData), next)
	}
	if sys.NbConstraints < 0 || uint64(sys.NbConstraints) != c.constraints {
		return fmt.Errorf("declares %d constraints, its instructions hold %d", sys.NbConstraints, c.constraints)
	}
	if c.wires-c.inputs > solvable {
		return fmt.Errorf("declares %d internal wires, its instructions can solve %d", c.wires-c.inputs, solvable)
	}
	return nil
}

// calldata returns pi's calldata, which must start at next: as many
// words as its blueprint takes, or (when that varies) as the first word
// says.
func (c *checker) calldata(pi constraint.PackedInstruction, next uint64) ([]uint32, error) {
	if uint64(pi.BlueprintID) >= uint64(len(c.bps)) {
		return nil, fmt.Errorf("blueprint %d of %d", pi.BlueprintID, len(c.bps))
	}
	all := c.sys.CallData
	if pi.StartCallData != next {
		return nil, fmt.Errorf("calldata at %d, want %d (where the previous instruction's ends)", pi.StartCallData, next)
	}
	n := uint64(c.bps[pi.BlueprintID].size)
	if c.bps[pi.BlueprintID].size < 0 {
		if next >= uint64(len(all)) {
			return nil, fmt.Errorf("calldata at %d, past the system's %d words", next, len(all))
		}
		n = uint64(all[next])
	}
	if n == 0 || n > uint64(len(all))-next {
		return nil, fmt.Errorf("calldata of %d words at %d ends past the system's %d", n, next, len(all))
	}
	return all[next : next+n], nil
}

// instructionError names instruction i and its blueprint in err.
func (c *checker) instructionError(i int, err error) error {
	pi := c.sys.Instructions[i]
	if uint64(pi.BlueprintID) >= uint64(len(c.sys.Blueprints)) {
		return fmt.Errorf("instruction %d: %w", i, err)
	}
	return fmt.Errorf("instruction %d (blueprint %d, %T): %w", i, pi.BlueprintID, c.sys.Blueprints[pi.BlueprintID], err)
}

// bitset is a set of small integers.
type bitset []uint64

func newBitset(n uint64) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i uint64)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i uint64) bool { return b[i/64]&(1<<(i%64)) != 0 }
