package ccsfile

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark/constraint"
)

// levels runs the levels as gnark's solver does: the inputs are solved
// first (the witness), then each level's instructions at once, in
// goroutines of the solver's when the level is large. So an instruction
// reads only wires solved before its level starts (a wire another
// instruction of its level solves may or may not be solved when it
// runs), solves only wires not solved yet, and no two instructions of a
// level solve the same wire. Every instruction is in exactly one level,
// and the levels solve every wire: what the solver's own sanity checks
// would otherwise find as a panic in one of its goroutines.
func (c *checker) levels() error {
	sys := c.sys
	c.solved, c.placed = newBitset(c.wires), newBitset(uint64(len(sys.Instructions)))
	for w := range c.inputs {
		c.solved.set(w)
	}
	count := c.inputs
	var solves []uint32
	for l, level := range sys.Levels {
		solves = solves[:0]
		for _, i := range level {
			if uint64(i) >= uint64(len(sys.Instructions)) {
				return fmt.Errorf("level %d: instruction %d of %d", l, i, len(sys.Instructions))
			}
			if c.placed.has(uint64(i)) {
				return fmt.Errorf("level %d: instruction %d is in an earlier level, or twice in this one", l, i)
			}
			c.placed.set(uint64(i))
			var err error
			if solves, err = c.run(sys.Instructions[i], solves); err != nil {
				return fmt.Errorf("level %d: %w", l, c.instructionError(int(i), err))
			}
		}
		for _, w := range solves {
			if c.solved.has(uint64(w)) {
				return fmt.Errorf("level %d: wire %d is solved by two of its instructions", l, w)
			}
			c.solved.set(uint64(w))
			count++
		}
	}
	for i := range sys.Instructions {
		if !c.placed.has(uint64(i)) {
			return fmt.Errorf("instruction %d is in no level", i)
		}
	}
	if count != c.wires {
		return fmt.Errorf("its levels solve %d of its %d wires", count, c.wires)
	}
	return nil
}

// run appends the wires pi solves to solves, checking that those it
// reads are solved (at the start of its level) and those it solves not.
// pi passed instructions, so its calldata is whole.
func (c *checker) run(pi constraint.PackedInstruction, solves []uint32) ([]uint32, error) {
	bp, cd := &c.bps[pi.BlueprintID], c.calldataOf(pi)
	solve := func(w uint32) error {
		if c.solved.has(uint64(w)) {
			return fmt.Errorf("solves wire %d, solved already", w)
		}
		solves = append(solves, w)
		return nil
	}
	var err error
	switch bp.kind {
	case bpR1C:
		err = c.runR1C(cd, solve)
	case bpSparse:
		err = c.runSparse(cd, solve)
	case bpSparseAdd:
		err = errors.Join(c.read(cd[3], cd[0]), c.read(cd[4], cd[1]))
		if err == nil {
			err = solve(cd[2])
		}
	case bpSparseMul:
		err = errors.Join(c.read(cd[3], cd[0]), c.read(constraint.CoeffIdOne, cd[1]))
		if err == nil {
			err = solve(cd[2])
		}
	case bpSparseBool:
		err = c.read(constraint.CoeffIdOne, cd[0])
	case bpHint:
		var h hintCall
		if h, err = c.hint(cd, c.read); err == nil {
			for w := h.out[0]; w < h.out[1] && err == nil; w++ {
				err = solve(w)
			}
		}
	case bpLookup:
		if err = c.tableReady(bp.table, uint64(cd[1])); err != nil {
			return nil, err
		}
		if _, err = c.exprs(cd, 3, uint64(cd[2]), c.kind == SparseR1CS, c.read); err == nil {
			for k := range cd[2] {
				if err = solve(pi.WireOffset + k); err != nil {
					break
				}
			}
		}
	}
	return solves, err
}

// calldataOf returns the calldata of pi, which passed instructions.
func (c *checker) calldataOf(pi constraint.PackedInstruction) []uint32 {
	cd := c.sys.CallData[pi.StartCallData:]
	if size := c.bps[pi.BlueprintID].size; size >= 0 {
		return cd[:size]
	}
	return cd[:cd[0]]
}

// read checks the solver may read the term (cid, vid): a constant, a
// term of a zero coefficient (whose wire is not looked at), or a term of
// a solved wire.
func (c *checker) read(cid, vid uint32) error {
	if vid == constantWire || cid == constraint.CoeffIdZero || c.solved.has(uint64(vid)) {
		return nil
	}
	return fmt.Errorf("reads wire %d, which no earlier level solves", vid)
}

// runR1C runs an R1CS's constraint: the solver looks every term's wire
// up and solves the one not yet solved, if any, dividing by its
// coefficient.
func (c *checker) runR1C(cd []uint32, solve func(uint32) error) error {
	open, cid, vid := 0, uint32(0), uint32(0)
	err := c.r1cTerms(cd, func(k, w uint32) error {
		if !c.solved.has(uint64(w)) {
			open, cid, vid = open+1, k, w
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case open > 1:
		return fmt.Errorf("a constraint with %d terms of wires not yet solved, want at most one", open)
	case open == 1 && cid == constraint.CoeffIdZero:
		return fmt.Errorf("a constraint solving wire %d by a zero coefficient", vid)
	case open == 1:
		return solve(vid)
	}
	return nil
}

// runSparse runs a SparseR1CS's generic constraint: the solver skips a
// commitment's, and otherwise solves the first of xa, xb and xc not yet
// solved, reading the terms of the others.
func (c *checker) runSparse(cd []uint32, solve func(uint32) error) error {
	if cd[8] != uint32(constraint.NOT) {
		return nil
	}
	xa, xb, xc, qL, qR, qO, qM := cd[0], cd[1], cd[2], cd[3], cd[4], cd[5], cd[6]
	switch {
	case !c.solved.has(uint64(xa)):
		if err := errors.Join(c.read(qM, xb), c.read(qR, xb), c.read(qO, xc)); err != nil {
			return err
		}
		return solve(xa)
	case !c.solved.has(uint64(xb)):
		if err := errors.Join(c.read(qM, xa), c.read(qL, xa), c.read(qO, xc)); err != nil {
			return err
		}
		return solve(xb)
	case !c.solved.has(uint64(xc)):
		return solve(xc)
	}
	return nil
}

// tableReady checks that the first n entries of a lookup's table read
// only solved wires: the first query of the table to need an entry
// reads it, at its level, and keeps its value for the others.
func (c *checker) tableReady(t *table, n uint64) error {
	for ; t.ready < n; t.ready++ {
		next, err := c.exprs(t.calldata, t.at, 1, c.kind == SparseR1CS, c.read)
		if err != nil {
			return fmt.Errorf("a lookup reading table entry %d: %w", t.ready, err)
		}
		t.at = next
	}
	return nil
}
