package keys

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
)

// The constraint system file (cs.R1CS.WriteTo) is read by a decoder
// that trusts it: gnark decodes its sections in goroutines of its own,
// where a length or a compressed block that does not fit its section
// panics (or, in the integer decompressor, loops for ever), and no
// recover of the caller's can catch that; and its solver, which runs in
// goroutines of its own too, indexes wires, coefficients and calldata
// as the file says. So the file is checked in two steps, both before
// anything of it is trusted:
//
//   - checkR1CS, before gnark sees the bytes: every length of the
//     container and of its sections, and the block structure of every
//     compressed integer stream, against the bytes that are there
//     (countUint32s, countUint64s);
//   - checkSolvable, after gnark decoded it (in the caller's goroutine):
//     what the solver and the setup will index, run through the levels
//     as the solver runs them, without arithmetic.
//
// A file both pass decodes and solves without a panic; a checksum that
// matches only says the bytes are the ones written, these say they can
// be used.

// The layout of a constraint system file: the total length of what
// follows the header (8 bytes, little endian) and gnark's version (3×8),
// then the system (a header of four section lengths, 8 bytes each, and
// the sections: levels, instructions, calldata, the CBOR body), then the
// coefficient table (a count, 8 bytes, and 32 bytes a coefficient).
const (
	r1csHeader   = 32
	systemHeader = 32
)

// minInstructionCalldata is the fewest calldata words an instruction of
// the kinds checkSolvable accepts takes (a constraint: its size and
// three lengths; a hint or a lookup: more), which bounds the
// instructions a file can declare by its calldata.
const minInstructionCalldata = 4

// checkR1CS checks a constraint system file of size bytes before gnark
// decodes it: the lengths it declares, section by section, against the
// bytes that are there, and the compressed streams of its levels and
// instructions block by block, so that gnark's decoder, which trusts
// them in goroutines of its own, stays within them.
func checkR1CS(r io.ReaderAt, size int64) error {
	if size < r1csHeader+systemHeader {
		return fmt.Errorf("%d bytes, shorter than the headers (%d)", size, r1csHeader+systemHeader)
	}
	var h [r1csHeader + systemHeader]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return err
	}
	body := uint64(size - r1csHeader)
	if n := binary.LittleEndian.Uint64(h[:8]); n != body {
		return fmt.Errorf("declares %d bytes of constraint system, the file has %d after the header", n, body)
	}
	var lens [4]uint64 // levels, instructions, calldata, body
	left := body - systemHeader
	for i := range lens {
		lens[i] = binary.LittleEndian.Uint64(h[r1csHeader+8*i:])
		if lens[i] > left {
			return fmt.Errorf("declares sections of more bytes than the file holds (%d left after the header)", body-systemHeader)
		}
		left -= lens[i]
	}
	if err := checkCoeffTable(r, size-int64(left), left); err != nil {
		return err
	}
	at := int64(r1csHeader + systemHeader)
	section := func(n uint64) ([]byte, error) {
		b := make([]byte, n)
		_, err := r.ReadAt(b, at)
		at += int64(n)
		return b, err
	}
	levels, err := section(lens[0])
	if err != nil {
		return err
	}
	instructions, err := section(lens[1])
	if err != nil {
		return err
	}
	if lens[2] < 8 {
		return fmt.Errorf("calldata: %d bytes, shorter than its count", lens[2])
	}
	var c [8]byte
	if _, err := r.ReadAt(c[:], at); err != nil {
		return err
	}
	// A value is at least one byte (uvarint).
	calldata := binary.LittleEndian.Uint64(c[:])
	if calldata > lens[2]-8 {
		return fmt.Errorf("calldata: declares %d values in %d bytes", calldata, lens[2]-8)
	}
	n, err := checkInstructions(instructions, calldata/minInstructionCalldata)
	if err != nil {
		return fmt.Errorf("instructions: %w", err)
	}
	if err := checkLevels(levels, n); err != nil {
		return fmt.Errorf("levels: %w", err)
	}
	return nil
}

// checkCoeffTable checks the coefficient table, the n bytes at off: a
// count and 32 bytes a coefficient, nothing after them.
func checkCoeffTable(r io.ReaderAt, off int64, n uint64) error {
	if n < 8 {
		return fmt.Errorf("coefficient table: %d bytes, shorter than its count", n)
	}
	var b [8]byte
	if _, err := r.ReadAt(b[:], off); err != nil {
		return err
	}
	if count := binary.LittleEndian.Uint64(b[:]); count > (n-8)/fr.Bytes || 8+count*fr.Bytes != n {
		return fmt.Errorf("coefficient table: declares %d coefficients, %d bytes hold them", count, n-8)
	}
	return nil
}

// checkInstructions checks the instructions section: three compressed
// uint32 streams (blueprint, constraint offset, wire offset) and one of
// uint64 (calldata start), of the same length, at most max, filling the
// section. It returns the instruction count.
func checkInstructions(b []byte, max uint64) (uint64, error) {
	var counts [4]uint64
	for i := range counts {
		var err error
		words := 4
		if i == 3 {
			words = 8
		}
		var stream []byte
		if stream, b, err = lengthPrefixed(b, words); err != nil {
			return 0, err
		}
		if i < 3 {
			counts[i], err = countUint32s(uint32s(stream), max)
		} else {
			counts[i], err = countUint64s(uint64s(stream), max)
		}
		if err != nil {
			return 0, err
		}
	}
	if counts[1] != counts[0] || counts[2] != counts[0] || counts[3] != counts[0] {
		return 0, fmt.Errorf("the instructions' fields have %d, %d, %d and %d values, want one each", counts[0], counts[1], counts[2], counts[3])
	}
	if len(b) != 0 {
		return 0, fmt.Errorf("%d bytes after the instructions", len(b))
	}
	return counts[0], nil
}

// checkLevels checks the levels section: a count of levels (8 bytes),
// then each a compressed uint32 stream of at least one instruction
// index, no more than n of them in all, filling the section.
func checkLevels(b []byte, n uint64) error {
	if len(b) < 8 {
		return fmt.Errorf("%d bytes, shorter than the count of levels", len(b))
	}
	levels := binary.LittleEndian.Uint64(b)
	b = b[8:]
	if levels > n || levels > uint64(len(b))/8 {
		return fmt.Errorf("declares %d levels of %d instructions in %d bytes", levels, n, len(b))
	}
	var total uint64
	for i := range levels {
		stream, rest, err := lengthPrefixed(b, 4)
		if err != nil {
			return fmt.Errorf("level %d: %w", i, err)
		}
		b = rest
		m, err := countUint32s(uint32s(stream), n-total)
		if err != nil {
			return fmt.Errorf("level %d: %w", i, err)
		}
		if m == 0 {
			return fmt.Errorf("level %d is empty", i)
		}
		total += m
	}
	if len(b) != 0 {
		return fmt.Errorf("%d bytes after the levels", len(b))
	}
	return nil
}

// lengthPrefixed splits b after a stream of words-byte words that a
// count (8 bytes, little endian) prefixes, returning the stream's bytes.
func lengthPrefixed(b []byte, words int) (stream, rest []byte, err error) {
	if len(b) < 8 {
		return nil, nil, errors.New("truncated before a stream's length")
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8)/uint64(words) {
		return nil, nil, fmt.Errorf("a stream declares %d words, %d bytes hold them", n, len(b)-8)
	}
	end := 8 + int(n)*words
	return b[8:end], b[end:], nil
}

func uint32s(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

func uint64s(b []byte) []uint64 {
	v := make([]uint64, len(b)/8)
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return v
}

// The integer compression gnark uses (github.com/ronanh/intcomp): a
// stream is blocks and then one word, the last block's length. A block
// is either delta variable-byte (fewer than a bit-packing block's
// values: a header, then the deltas' bytes, a byte with its top bit
// clear ending each value, padded with bytes that have it set) or delta
// bit-packing (a multiple of the block size of values: a header, the
// first value, then for each block a word of four group widths and the
// groups, as many words a group as its width in bits). The decompressor
// trusts the headers: a count that the bytes do not hold writes past its
// output, a width above the word's bits panics, a block length of zero
// loops for ever. countUint32s and countUint64s walk the blocks without
// decoding and return how many values the stream holds, refusing a
// stream whose headers do not match its bytes, or of more than max
// values (before the decompressor allocates them).
const (
	packBlock32 = 128 // values a bit-packing block of uint32s
	packBlock64 = 256
)

// countUint32s counts the values of a compressed uint32 stream (what
// intcomp.UncompressUint32 decodes). A block's header: its value count
// and its length in words; a bit-packing block's first value follows.
func countUint32s(in []uint32, max uint64) (uint64, error) {
	if len(in) == 0 {
		return 0, nil
	}
	in = in[:len(in)-1]
	var total uint64
	for len(in) > 0 {
		if len(in) < 2 {
			return 0, errors.New("a compressed block's header cut short")
		}
		n, size := uint64(in[0]), uint64(in[1])
		if size < 2 || size > uint64(len(in)) {
			return 0, fmt.Errorf("a compressed block of %d words, %d left", size, len(in))
		}
		block := in[:size]
		if n < packBlock32 {
			if n == 0 || ends32(block[2:]) != n {
				return 0, fmt.Errorf("a variable-byte block declares %d values, its bytes end %d", n, ends32(block[2:]))
			}
		} else if err := checkPacked(n, packBlock32, 32, size, func(i uint64) uint64 { return uint64(block[i]) }, 3); err != nil {
			return 0, err
		}
		if total += n; total > max {
			return 0, fmt.Errorf("more than %d values", max)
		}
		in = in[size:]
	}
	return total, nil
}

// countUint64s counts the values of a compressed uint64 stream (what
// intcomp.UncompressUint64 decodes): as countUint32s, a header word
// holding the value count (low 32 bits) and the length in words.
func countUint64s(in []uint64, max uint64) (uint64, error) {
	if len(in) == 0 {
		return 0, nil
	}
	in = in[:len(in)-1]
	var total uint64
	for len(in) > 0 {
		n, size := in[0]&math.MaxUint32, in[0]>>32
		if size < 2 || size > uint64(len(in)) || n > math.MaxInt32 {
			return 0, fmt.Errorf("a compressed block of %d words and %d values, %d words left", size, n, len(in))
		}
		block := in[:size]
		if n < packBlock64 {
			if n == 0 || ends64(block[1:]) != n {
				return 0, fmt.Errorf("a variable-byte block declares %d values, its bytes end %d", n, ends64(block[1:]))
			}
		} else if err := checkPacked(n, packBlock64, 64, size, func(i uint64) uint64 { return block[i] }, 2); err != nil {
			return 0, err
		}
		if total += n; total > max {
			return 0, fmt.Errorf("more than %d values", max)
		}
		in = in[size:]
	}
	return total, nil
}

// checkPacked checks a bit-packing block of n values and size words
// (word(i) reads its words), whose blocks start at word first: n a
// multiple of the block size, each block's four group widths at most
// bits, and the groups filling the words exactly.
func checkPacked(n, per uint64, bits int, size uint64, word func(uint64) uint64, first uint64) error {
	if n%per != 0 {
		return fmt.Errorf("a bit-packing block of %d values, not a multiple of %d", n, per)
	}
	at := first
	for range n / per {
		if at >= size {
			return fmt.Errorf("a bit-packing block of %d values cut short at %d words", n, size)
		}
		h := word(at)
		at++
		for _, shift := range []uint{24, 16, 8, 0} {
			w := (h >> shift) & 0x7f
			if w > uint64(bits) {
				return fmt.Errorf("a bit-packing group %d bits wide, above %d", w, bits)
			}
			at += w
		}
	}
	if at != size {
		return fmt.Errorf("a bit-packing block of %d values uses %d words, its header says %d", n, at, size)
	}
	return nil
}

// ends32 counts the bytes ending a value (top bit clear) in words of
// four bytes, most significant first.
func ends32(words []uint32) uint64 {
	var n uint64
	for _, w := range words {
		for shift := 24; shift >= 0; shift -= 8 {
			if (w>>shift)&0x80 == 0 {
				n++
			}
		}
	}
	return n
}

// ends64 is ends32 for words of eight bytes.
func ends64(words []uint64) uint64 {
	var n uint64
	for _, w := range words {
		for shift := 56; shift >= 0; shift -= 8 {
			if (w>>shift)&0x80 == 0 {
				n++
			}
		}
	}
	return n
}

// maxWires bounds the wires of a constraint system: a wire's ID is 32
// bits wide in every instruction that names it.
const maxWires = 1 << 32

// checkSolvable checks a decoded constraint system for what gnark's
// solver and setup will index: the instructions' blueprints (every kind
// gnark's R1CS builder and the standard gadgets write: the generic
// constraint, the generic hint, which api.Commit's commitment hint and
// every gadget's hints are, and std/lookup/logderivlookup's lookup),
// their calldata whole and their wires and coefficients within the
// system's, a lookup table's entries whole and within them too, the
// constraints numbered in order, every instruction in exactly one level
// and, run level by level as the solver runs them (a level's
// instructions at once), each constraint with at most one wire not yet
// solved (by a non-zero coefficient), each hint's and lookup's inputs
// (and the table entries a lookup reads) solved and its outputs not, no
// wire solved twice and every wire solved; and the debug entries a
// failing constraint prints within the system's tables. (The commitment
// info is the groth16 stages' to check: groth16.CheckSupported.)
func checkSolvable(sys *cs.R1CS) error {
	if sys.Type != constraint.SystemR1CS {
		return fmt.Errorf("a constraint system of type %d, not an R1CS", sys.Type)
	}
	if want := fr.Modulus().Text(16); sys.ScalarField != want {
		return fmt.Errorf("scalar field %s, want BLS12-381's", sys.ScalarField)
	}
	if sys.GkrInfo.Is() {
		return errors.New("a GKR sub-circuit, which the groth16 stages do not prove")
	}
	c := &solvable{sys: sys, inputs: uint64(len(sys.Public) + len(sys.Secret))}
	if len(sys.Public) == 0 || sys.NbInternalVariables < 0 || uint64(sys.NbInternalVariables) > maxWires-c.inputs {
		return fmt.Errorf("%d public, %d secret and %d internal wires", len(sys.Public), len(sys.Secret), sys.NbInternalVariables)
	}
	c.wires = c.inputs + uint64(sys.NbInternalVariables)
	if err := c.instructions(); err != nil {
		return err
	}
	if err := c.levels(); err != nil {
		return err
	}
	return c.debugInfo()
}

// solvable is checkSolvable's state.
type solvable struct {
	sys            *cs.R1CS
	inputs, wires  uint64
	kinds          []int // blueprintR1C, blueprintHint or blueprintLookup, by blueprint
	solved, placed bitset
	// tables are the lookup blueprints' entries, by blueprint.
	tables map[int]*lookupTable
}

const (
	blueprintR1C = iota
	blueprintHint
	blueprintLookup
)

// lookupTable is a lookup blueprint's table: where each entry (a linear
// expression: its length, then a coefficient and a wire a term) starts
// in its calldata, and how many entries levels found solved.
type lookupTable struct {
	calldata []uint32
	entries  []int
	solved   int
}

// instructions checks every instruction's blueprint and calldata, in
// order, and bounds the wires by what the instructions can solve (a
// constraint's terms are checked as levels runs it: every instruction is
// in a level).
func (c *solvable) instructions() error {
	sys := c.sys
	c.kinds = make([]int, len(sys.Blueprints))
	for i, b := range sys.Blueprints {
		switch b := b.(type) {
		case *constraint.BlueprintGenericR1C:
			c.kinds[i] = blueprintR1C
		case *constraint.BlueprintGenericHint:
			c.kinds[i] = blueprintHint
		case *constraint.BlueprintLookupHint[constraint.U64]:
			c.kinds[i] = blueprintLookup
			t, err := c.table(b.EntriesCalldata)
			if err != nil {
				return fmt.Errorf("blueprint %d (std/lookup/logderivlookup's table): %w", i, err)
			}
			if c.tables == nil {
				c.tables = map[int]*lookupTable{}
			}
			c.tables[i] = t
		default:
			return fmt.Errorf("blueprint %d is a %T, which is not one gnark's R1CS builder or its standard gadgets write (a generic constraint, a hint, a std/lookup/logderivlookup lookup): the groth16 stages do not prove it", i, b)
		}
	}
	var constraints, outputs uint64
	for i, pi := range sys.Instructions {
		cd, kind, err := c.calldata(pi)
		if err == nil && kind == blueprintR1C {
			if uint64(pi.ConstraintOffset) != constraints {
				err = fmt.Errorf("numbered %d, want %d", pi.ConstraintOffset, constraints)
			}
			constraints++
			err = errors.Join(err, r1cLength(cd))
		} else if err == nil && kind == blueprintHint {
			var out [2]uint32
			if out, err = c.hintTerms(cd, func(constraint.Term) {}); err == nil {
				outputs += uint64(out[1] - out[0])
			}
		} else if err == nil {
			var out [2]uint32
			if out, err = c.lookupTerms(pi, cd, func(constraint.Term) {}); err == nil {
				outputs += uint64(out[1] - out[0])
			}
		}
		if err != nil {
			return fmt.Errorf("instruction %d: %w", i, err)
		}
	}
	if sys.NbConstraints < 0 || uint64(sys.NbConstraints) != constraints {
		return fmt.Errorf("declares %d constraints, its instructions hold %d", sys.NbConstraints, constraints)
	}
	if c.wires > c.inputs+constraints+outputs {
		return fmt.Errorf("declares %d wires, its instructions can solve %d besides its %d inputs", c.wires, constraints+outputs, c.inputs)
	}
	return nil
}

// calldata returns pi's calldata (its first word is its length) and its
// blueprint's kind.
func (c *solvable) calldata(pi constraint.PackedInstruction) ([]uint32, int, error) {
	if int(pi.BlueprintID) >= len(c.kinds) {
		return nil, 0, fmt.Errorf("blueprint %d of %d", pi.BlueprintID, len(c.kinds))
	}
	all := c.sys.CallData
	if pi.StartCallData >= uint64(len(all)) {
		return nil, 0, fmt.Errorf("calldata at %d of %d", pi.StartCallData, len(all))
	}
	n := uint64(all[pi.StartCallData])
	if n > uint64(len(all))-pi.StartCallData {
		return nil, 0, fmt.Errorf("calldata of %d words at %d of %d", n, pi.StartCallData, len(all))
	}
	return all[pi.StartCallData : pi.StartCallData+n], c.kinds[pi.BlueprintID], nil
}

// r1cLength checks a constraint's calldata holds what it declares: its
// length, the lengths of L, R and O, then a coefficient and a wire a
// term.
func r1cLength(cd []uint32) error {
	if len(cd) < 4 || 4+2*(uint64(cd[1])+uint64(cd[2])+uint64(cd[3])) != uint64(len(cd)) {
		return fmt.Errorf("a constraint's calldata of %d words does not hold its terms", len(cd))
	}
	return nil
}

// r1cTerms checks a constraint's calldata (r1cLength) and its terms, and
// calls f on each term.
func (c *solvable) r1cTerms(cd []uint32, f func(constraint.Term)) error {
	if err := r1cLength(cd); err != nil {
		return err
	}
	for j := 4; j < len(cd); j += 2 {
		t := constraint.Term{CID: cd[j], VID: cd[j+1]}
		if err := c.term(t, false); err != nil {
			return err
		}
		f(t)
	}
	return nil
}

// hintTerms checks a hint's calldata (its length, the hint, the count of
// inputs, each input's length and terms, then the output range) and
// calls f on each input term; it returns the output range.
func (c *solvable) hintTerms(cd []uint32, f func(constraint.Term)) ([2]uint32, error) {
	bad := fmt.Errorf("a hint's calldata of %d words does not hold its inputs and outputs", len(cd))
	if len(cd) < 5 {
		return [2]uint32{}, bad
	}
	j := uint64(3)
	for range cd[2] {
		if j >= uint64(len(cd)) {
			return [2]uint32{}, bad
		}
		n := uint64(cd[j])
		j++
		if j+2*n > uint64(len(cd)) {
			return [2]uint32{}, bad
		}
		for ; n > 0; n-- {
			t := constraint.Term{CID: cd[j], VID: cd[j+1]}
			if err := c.term(t, true); err != nil {
				return [2]uint32{}, err
			}
			f(t)
			j += 2
		}
	}
	if j+2 != uint64(len(cd)) {
		return [2]uint32{}, bad
	}
	out := [2]uint32{cd[j], cd[j+1]}
	if out[0] > out[1] || uint64(out[1]) > c.wires {
		return [2]uint32{}, fmt.Errorf("a hint's outputs %d to %d, of %d wires", out[0], out[1], c.wires)
	}
	return out, nil
}

// table reads a lookup table's entries (linear expressions, one after
// the other, filling the calldata) and checks their terms.
func (c *solvable) table(cd []uint32) (*lookupTable, error) {
	t := &lookupTable{calldata: cd}
	for j := uint64(0); j < uint64(len(cd)); {
		t.entries = append(t.entries, int(j))
		n := uint64(cd[j])
		j++
		if j+2*n > uint64(len(cd)) {
			return nil, fmt.Errorf("entry %d of %d terms past the table's %d words", len(t.entries)-1, n, len(cd))
		}
		for ; n > 0; n-- {
			if err := c.term(constraint.Term{CID: cd[j], VID: cd[j+1]}, true); err != nil {
				return nil, fmt.Errorf("entry %d: %w", len(t.entries)-1, err)
			}
			j += 2
		}
	}
	return t, nil
}

// lookupTerms checks a lookup's calldata (its length, the table entries
// it may read, the count of queries, each query's length and terms) and
// calls f on each query term; it returns the output range, a wire a
// query from the instruction's wire offset.
func (c *solvable) lookupTerms(pi constraint.PackedInstruction, cd []uint32, f func(constraint.Term)) ([2]uint32, error) {
	bad := fmt.Errorf("a lookup's calldata of %d words does not hold its queries", len(cd))
	if len(cd) < 3 {
		return [2]uint32{}, bad
	}
	if t := c.tables[int(pi.BlueprintID)]; uint64(cd[1]) > uint64(len(t.entries)) {
		return [2]uint32{}, fmt.Errorf("a lookup reading %d entries of a table of %d", cd[1], len(t.entries))
	}
	j := uint64(3)
	for range cd[2] {
		if j >= uint64(len(cd)) {
			return [2]uint32{}, bad
		}
		n := uint64(cd[j])
		j++
		if j+2*n > uint64(len(cd)) {
			return [2]uint32{}, bad
		}
		for ; n > 0; n-- {
			t := constraint.Term{CID: cd[j], VID: cd[j+1]}
			if err := c.term(t, true); err != nil {
				return [2]uint32{}, err
			}
			f(t)
			j += 2
		}
	}
	if j != uint64(len(cd)) {
		return [2]uint32{}, bad
	}
	out := [2]uint32{pi.WireOffset, pi.WireOffset + cd[2]}
	if out[1] < out[0] || uint64(out[1]) > c.wires {
		return [2]uint32{}, fmt.Errorf("a lookup's outputs %d to %d, of %d wires", pi.WireOffset, uint64(pi.WireOffset)+uint64(cd[2]), c.wires)
	}
	return out, nil
}

// tableSolved checks that the first n entries of t have their wires
// solved (at the start of the level of a lookup that reads them).
func (c *solvable) tableSolved(t *lookupTable, n int) error {
	for ; t.solved < n; t.solved++ {
		j := t.entries[t.solved]
		terms := int(t.calldata[j])
		for k := 0; k < terms; k++ {
			tm := constraint.Term{CID: t.calldata[j+1+2*k], VID: t.calldata[j+2+2*k]}
			if !tm.IsConstant() && !c.solved.has(uint64(tm.VID)) {
				return fmt.Errorf("a lookup of table entry %d, whose wire %d is not yet solved", t.solved, tm.VID)
			}
		}
	}
	return nil
}

// term checks a term's coefficient and wire (a constant's, in a hint's
// input, has none).
func (c *solvable) term(t constraint.Term, constantOK bool) error {
	if int(t.CID) >= len(c.sys.Coefficients) {
		return fmt.Errorf("coefficient %d of %d", t.CID, len(c.sys.Coefficients))
	}
	if t.IsConstant() && constantOK {
		return nil
	}
	if uint64(t.VID) >= c.wires {
		return fmt.Errorf("wire %d of %d", t.VID, c.wires)
	}
	return nil
}

// levels runs the levels as the solver does: the inputs are solved
// first, then each level's instructions at once.
func (c *solvable) levels() error {
	sys := c.sys
	c.solved, c.placed = newBitset(c.wires), newBitset(uint64(len(sys.Instructions)))
	for w := range c.inputs {
		c.solved.set(w)
	}
	count := c.inputs
	for l, level := range sys.Levels {
		var solves []uint32
		for _, i := range level {
			if int(i) >= len(sys.Instructions) || c.placed.has(uint64(i)) {
				return fmt.Errorf("level %d: instruction %d is not one, or in two levels", l, i)
			}
			c.placed.set(uint64(i))
			var err error
			if solves, err = c.solves(sys.Instructions[i], solves); err != nil {
				return fmt.Errorf("level %d: instruction %d: %w", l, i, err)
			}
		}
		for _, w := range solves {
			if c.solved.has(uint64(w)) {
				return fmt.Errorf("level %d: wire %d is solved twice", l, w)
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

// solves appends the wires pi solves, the others it reads solved at the
// start of its level.
func (c *solvable) solves(pi constraint.PackedInstruction, solves []uint32) ([]uint32, error) {
	cd, kind, err := c.calldata(pi)
	if err != nil {
		return nil, err
	}
	if kind == blueprintR1C {
		open, first := 0, constraint.Term{}
		err := c.r1cTerms(cd, func(t constraint.Term) {
			if !c.solved.has(uint64(t.VID)) {
				if open == 0 {
					first = t
				}
				open++
			}
		})
		switch {
		case err != nil:
			return nil, err
		case open > 1:
			return nil, fmt.Errorf("a constraint with %d terms of wires not yet solved, want at most one", open)
		case open == 1 && first.CID == constraint.CoeffIdZero:
			return nil, fmt.Errorf("a constraint solving wire %d by a zero coefficient", first.VID)
		case open == 1:
			solves = append(solves, first.VID)
		}
		return solves, nil
	}
	unsolved := false
	input := func(t constraint.Term) {
		if !t.IsConstant() && !c.solved.has(uint64(t.VID)) {
			unsolved = true
		}
	}
	var out [2]uint32
	if kind == blueprintHint {
		out, err = c.hintTerms(cd, input)
	} else if out, err = c.lookupTerms(pi, cd, input); err == nil {
		err = c.tableSolved(c.tables[int(pi.BlueprintID)], int(cd[1]))
	}
	if err != nil {
		return nil, err
	}
	if unsolved {
		return nil, errors.New("a hint or lookup of a wire not yet solved")
	}
	for w := out[0]; w < out[1]; w++ {
		if c.solved.has(uint64(w)) {
			return nil, fmt.Errorf("a hint solving wire %d, already solved", w)
		}
		solves = append(solves, w)
	}
	return solves, nil
}

// debugInfo checks what the solver prints of a constraint that fails
// and of the circuit's log entries: the entries' terms and their stack
// frames within the system's tables.
func (c *solvable) debugInfo() error {
	sys := c.sys
	for cid, d := range sys.MDebug {
		if d < 0 || d >= len(sys.DebugInfo) {
			return fmt.Errorf("constraint %d's debug entry %d of %d", cid, d, len(sys.DebugInfo))
		}
	}
	for _, entries := range [][]constraint.LogEntry{sys.DebugInfo, sys.Logs} {
		for i, e := range entries {
			for _, le := range e.ToResolve {
				for _, t := range le {
					if err := c.term(t, true); err != nil {
						return fmt.Errorf("debug entry %d: %w", i, err)
					}
				}
			}
			for _, s := range e.Stack {
				locs := sys.SymbolTable.Locations
				if s < 0 || s >= len(locs) || locs[s].FunctionID < 0 || locs[s].FunctionID >= len(sys.SymbolTable.Functions) {
					return fmt.Errorf("debug entry %d: stack frame %d of %d", i, s, len(locs))
				}
			}
		}
	}
	return nil
}

// bitset is a set of small integers.
type bitset []uint64

func newBitset(n uint64) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i uint64)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i uint64) bool { return b[i/64]&(1<<(i%64)) != 0 }
