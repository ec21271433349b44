package ccsfile

import (
	"errors"
	"fmt"
	"math"

	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/constraint/solver"
	fcs "github.com/consensys/gnark/frontend/cs"
)

// bpKind is what gnark's solver does with the instructions of a
// blueprint: every kind of blueprint gnark v0.14's frontends emit into a
// system on a pairing-friendly curve (elements of constraint.U64).
type bpKind uint8

const (
	// bpR1C is an R1CS's constraint, L⋅R = O (BlueprintGenericR1C): its
	// calldata is its length, the lengths of L, R and O, then their terms
	// (a coefficient and a wire each). The solver solves the one wire of
	// its terms not yet solved, if any.
	bpR1C bpKind = iota + 1
	// bpSparse is a SparseR1CS's constraint qL⋅xa + qR⋅xb + qO⋅xc +
	// qM⋅xa⋅xb + qC = 0 (BlueprintGenericSparseR1C): xa, xb, xc, the five
	// coefficients and a commitment flag. The solver solves the first of
	// xa, xb, xc not yet solved, and skips a constraint flagged as a
	// commitment's.
	bpSparse
	// bpSparseAdd is qL⋅xa + qR⋅xb + qC = xc (BlueprintSparseR1CAdd):
	// xa, xb, xc, qL, qR, qC; it solves xc.
	bpSparseAdd
	// bpSparseMul is qM⋅xa⋅xb = xc (BlueprintSparseR1CMul): xa, xb, xc,
	// qM; it solves xc.
	bpSparseMul
	// bpSparseBool is qL⋅xa + qM⋅xa⋅xa = 0 (BlueprintSparseR1CBool): xa,
	// qL, qM; it solves nothing.
	bpSparseBool
	// bpHint is a hint (BlueprintGenericHint): its calldata's length, the
	// hint's ID, the count of inputs, each input a linear expression (its
	// length, then its terms; a constant term has the wire math.MaxUint32),
	// then the range of wires it solves. The commitments' hints are
	// hints (commitments.go), and so are every std gadget's (range checks,
	// emulated arithmetic, batch inversions, bit decompositions).
	bpHint
	// bpLookup is a query of a std/lookup/logderivlookup table
	// (BlueprintLookupHint, one blueprint a table, holding the table's
	// entries, each an expression): its calldata's length, how many of
	// the table's first entries it may read, the count of queries, each
	// an expression (in a SparseR1CS, always one term); it solves as many
	// wires as queries, from its instruction's wire offset on.
	bpLookup
)

// constraints is how many constraints an instruction of kind k holds.
func (k bpKind) constraints() uint64 {
	if k == bpHint || k == bpLookup {
		return 0
	}
	return 1
}

// sparseLayouts is where a sparse constraint's calldata holds its wires
// and coefficients, by kind: the first wires words are wires, the words
// from there to coeffEnd coefficients (a generic one's last word is its
// commitment flag); size is the calldata's length, 0 for the kinds that
// are not sparse constraints.
var sparseLayouts = [bpLookup + 1]struct{ size, wires, coeffEnd int }{
	bpSparse:     {9, 3, 8},
	bpSparseAdd:  {6, 3, 6},
	bpSparseMul:  {4, 3, 4},
	bpSparseBool: {3, 1, 3},
}

// blueprint is what the checks know of one of the system's blueprints.
type blueprint struct {
	kind bpKind
	// size is the calldata's length of its instructions, or -1 when each
	// instruction's first word says it (Blueprint.CalldataSize, what the
	// solver slices the calldata by).
	size int
	// table is a lookup's table.
	table *table
}

// table is a lookup table's entries (BlueprintLookupHint's
// EntriesCalldata): count of them; ready is how many of the first ones
// the levels run so far solved, at the word where the next one starts.
type table struct {
	calldata     []uint32
	count, ready uint64
	at           int
}

// classify returns the kind of b in a system of kind k: 0 for a
// blueprint gnark's frontend for k does not emit.
func classify(b constraint.Blueprint, k Kind) bpKind {
	switch b.(type) {
	case *constraint.BlueprintGenericHint:
		return bpHint
	case *constraint.BlueprintLookupHint[constraint.U64]:
		return bpLookup
	}
	if k == R1CS {
		if _, ok := b.(*constraint.BlueprintGenericR1C); ok {
			return bpR1C
		}
		return 0
	}
	switch b.(type) {
	case *constraint.BlueprintGenericSparseR1C[constraint.U64]:
		return bpSparse
	case *constraint.BlueprintSparseR1CAdd[constraint.U64]:
		return bpSparseAdd
	case *constraint.BlueprintSparseR1CMul[constraint.U64]:
		return bpSparseMul
	case *constraint.BlueprintSparseR1CBool[constraint.U64]:
		return bpSparseBool
	}
	return 0
}

// blueprints classifies the system's blueprints, refusing one of a type
// gnark's frontend for the system's kind does not emit, and checks the
// lookup tables' entries.
func (c *checker) blueprints() error {
	c.bps = make([]blueprint, len(c.sys.Blueprints))
	for i, b := range c.sys.Blueprints {
		k := classify(b, c.kind)
		if k == 0 {
			return fmt.Errorf("blueprint %d is a %T, not one gnark's frontend emits into a system of kind %s", i, b, c.kind)
		}
		c.bps[i] = blueprint{kind: k, size: b.CalldataSize()}
		if l := sparseLayouts[k]; l.size != 0 && c.bps[i].size != l.size {
			return fmt.Errorf("blueprint %d (%T) takes %d calldata words, want %d", i, b, c.bps[i].size, l.size)
		}
		if k == bpLookup {
			t, err := c.table(b.(*constraint.BlueprintLookupHint[constraint.U64]).EntriesCalldata)
			if err != nil {
				return fmt.Errorf("blueprint %d (%T): %w", i, b, err)
			}
			c.bps[i].table = t
		}
	}
	return nil
}

// table checks a lookup table's entries, every one an expression the
// solver reads whole, and counts them.
func (c *checker) table(entries []uint32) (*table, error) {
	t := &table{calldata: entries}
	for j := 0; j < len(entries); t.count++ {
		var err error
		if j, err = c.exprs(entries, j, 1, c.kind == SparseR1CS, nil); err != nil {
			return nil, fmt.Errorf("table entry %d: %w", t.count, err)
		}
	}
	return t, nil
}

// shape checks instruction i's calldata cd as its blueprint reads it,
// and its terms' wires and coefficients within the system's; it returns
// the most wires the instruction can solve.
func (c *checker) shape(i int, pi constraint.PackedInstruction, cd []uint32) (uint64, error) {
	bp := &c.bps[pi.BlueprintID]
	switch bp.kind {
	case bpR1C:
		return 1, c.r1cTerms(cd, nil)
	case bpHint:
		h, err := c.hint(cd, nil)
		if err != nil {
			return 0, err
		}
		if h.id == bsb22Hint {
			c.commitmentHints = append(c.commitmentHints, i)
		}
		return uint64(h.out[1] - h.out[0]), nil
	case bpLookup:
		if len(cd) < 3 {
			return 0, fmt.Errorf("a lookup's calldata of %d words, shorter than its header", len(cd))
		}
		if uint64(cd[1]) > bp.table.count {
			return 0, fmt.Errorf("a lookup reading the first %d entries of a table of %d", cd[1], bp.table.count)
		}
		end, err := c.exprs(cd, 3, uint64(cd[2]), c.kind == SparseR1CS, nil)
		if err == nil && end != len(cd) {
			err = fmt.Errorf("a lookup's calldata of %d words, its queries end at %d", len(cd), end)
		}
		if err == nil && uint64(pi.WireOffset)+uint64(cd[2]) > c.wires {
			err = fmt.Errorf("a lookup solving wires %d to %d, of %d", pi.WireOffset, uint64(pi.WireOffset)+uint64(cd[2]), c.wires)
		}
		return uint64(cd[2]), err
	}
	l := sparseLayouts[bp.kind]
	if len(cd) != l.size {
		return 0, fmt.Errorf("a constraint's calldata of %d words, want %d", len(cd), l.size)
	}
	for _, w := range cd[:l.wires] {
		if uint64(w) >= c.wires {
			return 0, fmt.Errorf("wire %d of %d", w, c.wires)
		}
	}
	for _, k := range cd[l.wires:l.coeffEnd] {
		if uint64(k) >= c.coeffs {
			return 0, fmt.Errorf("coefficient %d of %d", k, c.coeffs)
		}
	}
	switch bp.kind {
	case bpSparseBool:
		return 0, nil
	case bpSparse:
		switch constraint.CommitmentConstraint(cd[8]) {
		case constraint.NOT:
			return 1, nil
		case constraint.COMMITTED, constraint.COMMITMENT:
			return 0, nil
		}
		return 0, fmt.Errorf("a commitment flag of %d", cd[8])
	}
	return 1, nil
}

// r1cTerms checks a constraint's calldata holds what it declares (its
// length, the lengths of L, R and O, then a coefficient and a wire a
// term) and each term's coefficient and wire (never a constant: the
// solver looks every term's wire up), and calls f (when not nil) on each
// term.
func (c *checker) r1cTerms(cd []uint32, f func(cid, vid uint32) error) error {
	if len(cd) < 4 || 4+2*(uint64(cd[1])+uint64(cd[2])+uint64(cd[3])) != uint64(len(cd)) {
		return fmt.Errorf("a constraint's calldata of %d words does not hold its terms", len(cd))
	}
	for j := 4; j < len(cd); j += 2 {
		if err := c.term(cd[j], cd[j+1], false); err != nil {
			return err
		}
		if f != nil {
			if err := f(cd[j], cd[j+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// constantWire is the wire of a constant term.
const constantWire = math.MaxUint32

// bsb22Hint is the ID of the hint computing a commitment, which gnark's
// provers replace by their own.
var bsb22Hint = uint32(solver.GetHintID(fcs.Bsb22CommitmentComputePlaceholder))

// hintCall is a hint instruction's calldata: the hint, its inputs (count
// expressions from the word first) and the wires it solves, out[0] up to
// out[1].
type hintCall struct {
	id           uint32
	count, first int
	out          [2]uint32
}

// hint checks a hint's calldata (its length, the hint, the count of
// inputs, each input's length and terms, then the output range) and
// calls f (when not nil) on each input term.
func (c *checker) hint(cd []uint32, f func(cid, vid uint32) error) (hintCall, error) {
	if len(cd) < 5 {
		return hintCall{}, fmt.Errorf("a hint's calldata of %d words, shorter than its header", len(cd))
	}
	j, err := c.exprs(cd, 3, uint64(cd[2]), false, f)
	if err != nil {
		return hintCall{}, err
	}
	if j+2 != len(cd) {
		return hintCall{}, fmt.Errorf("a hint's calldata of %d words, its inputs end at %d", len(cd), j)
	}
	h := hintCall{id: cd[1], count: int(cd[2]), first: 3, out: [2]uint32{cd[j], cd[j+1]}}
	if h.out[0] > h.out[1] || uint64(h.out[1]) > c.wires {
		return hintCall{}, fmt.Errorf("a hint solving wires %d to %d, of %d", h.out[0], h.out[1], c.wires)
	}
	return h, nil
}

var errShortExpr = errors.New("an expression ends past its calldata")

// exprs checks count expressions in cd from word j on (each its length,
// then a coefficient and a wire a term; exactly one term where single:
// a lookup's in a SparseR1CS, which the solver reads as one term), each
// term's coefficient and wire (or a constant), and calls f (when not
// nil) on each term; it returns the word after them.
func (c *checker) exprs(cd []uint32, j int, count uint64, single bool, f func(cid, vid uint32) error) (int, error) {
	for range count {
		if j >= len(cd) {
			return 0, errShortExpr
		}
		n := uint64(cd[j])
		j++
		if n > uint64(len(cd)-j)/2 {
			return 0, errShortExpr
		}
		if single && n != 1 {
			return 0, fmt.Errorf("an expression of %d terms, where the solver reads one", n)
		}
		for ; n > 0; n-- {
			if err := c.term(cd[j], cd[j+1], true); err != nil {
				return 0, err
			}
			if f != nil {
				if err := f(cd[j], cd[j+1]); err != nil {
					return 0, err
				}
			}
			j += 2
		}
	}
	return j, nil
}

// term checks a term's coefficient and wire (a constant's, where
// constantOK, has none).
func (c *checker) term(cid, vid uint32, constantOK bool) error {
	if uint64(cid) >= c.coeffs {
		return fmt.Errorf("coefficient %d of %d", cid, c.coeffs)
	}
	if vid == constantWire && constantOK {
		return nil
	}
	if uint64(vid) >= c.wires {
		return fmt.Errorf("wire %d of %d", vid, c.wires)
	}
	return nil
}
