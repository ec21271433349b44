package ccsfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark"
)

// The layout of a constraint system file (WriteTo of gnark's curve-typed
// R1CS and SparseR1CS, one encoding for both): the length of what
// follows the header (8 bytes, little endian) and the version of gnark
// that wrote it (major, minor, patch: 8 bytes each), then the system (a
// header of four section lengths, 8 bytes each, and the sections:
// levels, instructions, calldata, the CBOR body), then the coefficient
// table (a count, 8 bytes, and CoefficientBytes a coefficient).
const (
	// FileHeader is the length of the file's header.
	FileHeader = 32
	// SystemHeader is the length of the system's header of section
	// lengths, which follows the file's.
	SystemHeader = 32
	// coefficientBytes is a coefficient's length in the table: a scalar
	// of four 64-bit limbs (every field prooflane proves over).
	coefficientBytes = 32
)

// minInstructionCalldata is the fewest calldata words an instruction
// takes (a boolean constraint of a SparseR1CS; every other kind takes
// more), which bounds the instructions a file can declare by its
// calldata. The instructions' calldata do not overlap (CheckSolvable).
const minInstructionCalldata = 3

// CheckLayout checks a constraint system file of size bytes before
// gnark decodes it: the version of gnark that wrote it, the lengths it
// declares, section by section, against the bytes that are there, and
// the compressed streams of its levels and instructions block by block,
// so that gnark's decoder, which trusts them in goroutines of its own,
// stays within them and allocates no more than the bytes justify.
func CheckLayout(r io.ReaderAt, size int64) error {
	if size < FileHeader+SystemHeader {
		return fmt.Errorf("%d bytes, shorter than the headers (%d)", size, FileHeader+SystemHeader)
	}
	var h [FileHeader + SystemHeader]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return err
	}
	if err := checkVersion(h[8:FileHeader]); err != nil {
		return err
	}
	body := uint64(size - FileHeader)
	if n := binary.LittleEndian.Uint64(h[:8]); n != body {
		return fmt.Errorf("declares %d bytes of constraint system, the file has %d after the header", n, body)
	}
	var lens [4]uint64 // levels, instructions, calldata, body
	left := body - SystemHeader
	for i := range lens {
		lens[i] = binary.LittleEndian.Uint64(h[FileHeader+8*i:])
		if lens[i] > left {
			return fmt.Errorf("declares sections of more bytes than the file holds (%d left after the header)", body-SystemHeader)
		}
		left -= lens[i]
	}
	if err := checkCoeffTable(r, size-int64(left), left); err != nil {
		return err
	}
	at := int64(FileHeader + SystemHeader)
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

// checkVersion checks the version of gnark that wrote the file (three
// little-endian words): gnark's encoding is its own from one minor
// version to the next, so the file is read only when it was written by
// the major and minor version prooflane links.
func checkVersion(b []byte) error {
	major, minor, patch := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	if major != gnark.Version.Major || minor != gnark.Version.Minor {
		return fmt.Errorf("written by gnark %d.%d.%d; prooflane reads the files of gnark %d.%d (write it with gnark v%d.%d.x)",
			major, minor, patch, gnark.Version.Major, gnark.Version.Minor, gnark.Version.Major, gnark.Version.Minor)
	}
	return nil
}

// checkCoeffTable checks the coefficient table, the n bytes at off: a
// count and coefficientBytes a coefficient, nothing after them.
func checkCoeffTable(r io.ReaderAt, off int64, n uint64) error {
	if n < 8 {
		return fmt.Errorf("coefficient table: %d bytes, shorter than its count", n)
	}
	var b [8]byte
	if _, err := r.ReadAt(b[:], off); err != nil {
		return err
	}
	if count := binary.LittleEndian.Uint64(b[:]); count > (n-8)/coefficientBytes || 8+count*coefficientBytes != n {
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
		words := 4
		if i == 3 {
			words = 8
		}
		stream, rest, err := lengthPrefixed(b, words)
		if err != nil {
			return 0, err
		}
		b = rest
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
