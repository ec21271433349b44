package ccsfile

import (
	"errors"
	"fmt"
	"math"
)

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
