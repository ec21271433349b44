package ccsfile

import (
	"fmt"

	"github.com/consensys/gnark/constraint"
)

// commitments checks a system's commitments (api.Commit, and what the
// std gadgets built on it commit: range checks, lookups, multi-commits)
// as gnark's setups and provers index them, since the provers compute
// each commitment in a hint of their own that the solver runs in its
// goroutines:
//
//   - an R1CS's (Groth16): each commitment's wire an internal one, in
//     increasing order; the public wires and earlier commitments' wires it
//     commits to, and its private ones, in increasing order, the private
//     ones internal or secret, no commitment's wire and no other
//     commitment's;
//   - a SparseR1CS's (PLONK): each commitment's constraint, and the
//     constraints of the values it commits to, within the system's, in
//     increasing order;
//   - the hints computing them: one a commitment, whose first input is
//     the commitment's number (a constant) and the others the values it
//     commits to, solving one wire (in an R1CS, the commitment's).
func (c *checker) commitments() error {
	var counts []int // the committed values of each commitment
	var wires []int  // the commitments' wires (an R1CS's)
	var want constraint.Commitments = constraint.PlonkCommitments{}
	if c.kind == R1CS {
		want = constraint.Groth16Commitments{}
	}
	switch info := c.sys.CommitmentInfo.(type) {
	case constraint.Groth16Commitments:
		if c.kind != R1CS {
			break
		}
		if err := c.groth16Commitments(info); err != nil {
			return err
		}
		for _, cm := range info {
			counts = append(counts, len(cm.PublicAndCommitmentCommitted)+len(cm.PrivateCommitted))
			wires = append(wires, cm.CommitmentIndex)
		}
		return c.commitmentHintCalls(counts, wires)
	case constraint.PlonkCommitments:
		if c.kind != SparseR1CS {
			break
		}
		if err := c.plonkCommitments(info); err != nil {
			return err
		}
		for _, cm := range info {
			counts = append(counts, len(cm.Committed))
		}
		return c.commitmentHintCalls(counts, nil)
	}
	return fmt.Errorf("its commitments are a %T, want a %T", c.sys.CommitmentInfo, want)
}

// groth16Commitments checks an R1CS's commitments' wires.
func (c *checker) groth16Commitments(info constraint.Groth16Commitments) error {
	public := len(c.sys.Public)
	isCommitment := map[int]int{} // a commitment's wire, to its number
	for i, cm := range info {
		w := cm.CommitmentIndex
		if w < public || uint64(w) >= c.wires || (i > 0 && w <= info[i-1].CommitmentIndex) {
			return fmt.Errorf("commitment %d: its wire %d, want an internal one (%d to %d) after the previous commitment's", i, w, public, c.wires)
		}
		isCommitment[w] = i
	}
	committed := newBitset(c.wires) // the private wires committed so far
	for i, cm := range info {
		all, pub := cm.PublicAndCommitmentCommitted, cm.NbPublicCommitted
		if pub < 0 || pub > len(all) {
			return fmt.Errorf("commitment %d: %d public wires committed, of the %d public and commitment wires it lists", i, pub, len(all))
		}
		if err := increasing(all[:pub], 0, public); err != nil {
			return fmt.Errorf("commitment %d: the public wires it commits to: %w", i, err)
		}
		if err := increasing(all[pub:], public, int(c.wires)); err != nil {
			return fmt.Errorf("commitment %d: the commitments' wires it commits to: %w", i, err)
		}
		for _, w := range all[pub:] {
			if j, ok := isCommitment[w]; !ok || j >= i {
				return fmt.Errorf("commitment %d: commits to wire %d as an earlier commitment's, which it is not", i, w)
			}
		}
		if err := increasing(cm.PrivateCommitted, public, int(c.wires)); err != nil {
			return fmt.Errorf("commitment %d: the private wires it commits to: %w", i, err)
		}
		for _, w := range cm.PrivateCommitted {
			if j, ok := isCommitment[w]; ok {
				return fmt.Errorf("commitment %d: commits to wire %d as a private one, commitment %d's wire", i, w, j)
			}
			if committed.has(uint64(w)) {
				return fmt.Errorf("commitment %d: commits to private wire %d, which an earlier commitment commits to", i, w)
			}
			committed.set(uint64(w))
		}
	}
	return nil
}

// plonkCommitments checks a SparseR1CS's commitments' constraints.
func (c *checker) plonkCommitments(info constraint.PlonkCommitments) error {
	n := int(c.constraints)
	for i, cm := range info {
		if cm.CommitmentIndex < 0 || cm.CommitmentIndex >= n || (i > 0 && cm.CommitmentIndex <= info[i-1].CommitmentIndex) {
			return fmt.Errorf("commitment %d: its constraint %d, want one of the %d after the previous commitment's", i, cm.CommitmentIndex, n)
		}
		if err := increasing(cm.Committed, 0, n); err != nil {
			return fmt.Errorf("commitment %d: the constraints it commits to: %w", i, err)
		}
	}
	return nil
}

// increasing checks v is strictly increasing within [lo, hi).
func increasing(v []int, lo, hi int) error {
	for k, x := range v {
		if x < lo || x >= hi || (k > 0 && x <= v[k-1]) {
			return fmt.Errorf("%d at %d, want increasing values from %d to %d", x, k, lo, hi)
		}
	}
	return nil
}

// commitmentHintCalls checks the hints computing the commitments, which
// the provers replace: commitment d's (counts[d] values committed, and
// in an R1CS its wire wires[d]) is one hint whose first input is d, a
// constant, and then as many inputs as values committed, solving one
// wire; no other hint is one of them.
func (c *checker) commitmentHintCalls(counts, wires []int) error {
	if len(c.commitmentHints) != len(counts) {
		return fmt.Errorf("%d commitment(s) and %d hint(s) computing commitments, want one hint a commitment", len(counts), len(c.commitmentHints))
	}
	seen := make([]bool, len(counts))
	for _, i := range c.commitmentHints {
		cd := c.calldataOf(c.sys.Instructions[i])
		h, err := c.hint(cd, nil)
		if err != nil {
			return c.instructionError(i, err)
		}
		d, ok := c.constantInput(cd, h)
		switch {
		case !ok || d >= uint64(len(counts)) || seen[d]:
			err = fmt.Errorf("a commitment's hint whose first input is not a constant naming one of the %d commitments, each once", len(counts))
		case h.count != 1+counts[d]:
			err = fmt.Errorf("commitment %d's hint of %d inputs, want %d", d, h.count, 1+counts[d])
		case h.out[1]-h.out[0] != 1 || (wires != nil && int(h.out[0]) != wires[d]):
			err = fmt.Errorf("commitment %d's hint solving wires %d to %d, want its wire alone", d, h.out[0], h.out[1])
		}
		if err != nil {
			return c.instructionError(i, err)
		}
		seen[d] = true
	}
	return nil
}

// constantInput returns the value of hint h's first input when it is a
// constant: terms of constants, of the constant wire (an R1CS's wire 0,
// which the solver sets to one) or of zero coefficients.
func (c *checker) constantInput(cd []uint32, h hintCall) (uint64, bool) {
	if h.count == 0 {
		return 0, false
	}
	j := h.first
	var sum constraint.U64
	for n := cd[j]; n > 0; n-- {
		cid, vid := cd[j+1], cd[j+2]
		j += 2
		switch {
		case vid == constantWire || (c.kind == R1CS && vid == 0):
			sum = c.cs.Add(sum, c.cs.GetCoefficient(int(cid)))
		case cid != constraint.CoeffIdZero:
			return 0, false
		}
	}
	return c.cs.Uint64(sum)
}
