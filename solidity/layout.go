package solidity

import (
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	blskzg "github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	bnkzg "github.com/consensys/gnark-crypto/ecc/bn254/kzg"
)

// encoding is what gnark's encoding of one curve's elements takes: the
// sizes of a point compressed and not, how a point's first byte says
// which, and the steps of the KZG key's precomputed pairing lines (a
// PLONK key holds them, eight E2 elements a step).
type encoding struct {
	curve          ecc.ID
	name           string
	fp             int // a base field element; an E2 is two
	g1, g2         int // compressed points; uncompressed are twice these
	lines          int
	compressedFlag byte // set in a compressed point's first byte
}

// The curves a verifying key file is told apart on: BN254, the one the
// contracts verify, and BLS12-381, prooflane's other curve, recognised
// to be refused by name.
var (
	bn254Encoding    = encoding{curve: ecc.BN254, name: "BN254", fp: 32, g1: 32, g2: 64, lines: len(bnkzg.VerifyingKey{}.Lines[0][0]), compressedFlag: 0b11 << 6}
	bls12381Encoding = encoding{curve: ecc.BLS12_381, name: "BLS12-381", fp: 48, g1: 48, g2: 96, lines: len(blskzg.VerifyingKey{}.Lines[0][0]), compressedFlag: 0b100 << 5}
)

// frBytes is a scalar field element's size on both curves.
const frBytes = 32

// layout walks an encoding's bytes, checking every length it declares
// against the bytes left before gnark's decoder sees them: the decoder
// allocates what a length prefix says before reading the elements, so a
// corrupt count of 2^32 would end the process with an out-of-memory
// error no recover catches. The first problem sticks; later steps do
// nothing.
type layout struct {
	enc encoding
	b   []byte
	at  int
	err error
}

func (l *layout) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf(format, args...)
	}
}

// skip steps over n bytes of what.
func (l *layout) skip(n int, what string) {
	if l.err != nil {
		return
	}
	if n > len(l.b)-l.at {
		l.fail("truncated in %s at byte %d", what, l.at)
		return
	}
	l.at += n
}

// point steps over n points of size (compressed) each, an uncompressed
// one taking twice that, as each point's first byte says.
func (l *layout) point(n, size int, what string) {
	for range n {
		if l.err != nil {
			return
		}
		if l.at >= len(l.b) {
			l.fail("truncated in %s at byte %d", what, l.at)
			return
		}
		if l.b[l.at]&l.enc.compressedFlag == 0 {
			l.skip(2*size, what)
		} else {
			l.skip(size, what)
		}
	}
}

func (l *layout) g1(n int, what string) { l.point(n, l.enc.g1, what) }
func (l *layout) g2(n int, what string) { l.point(n, l.enc.g2, what) }

// count reads a 4-byte count of elements of at least min bytes each and
// checks that many fit in what is left.
func (l *layout) count(min int, what string) int {
	l.skip(4, what)
	if l.err != nil {
		return 0
	}
	n := binary.BigEndian.Uint32(l.b[l.at-4:])
	if left := uint64(len(l.b) - l.at); uint64(n)*uint64(min) > left {
		l.fail("declares %d %s, %d bytes left for them", n, what, left)
		return 0
	}
	return int(n)
}

// end checks that nothing is left over and returns the walk's problem.
func (l *layout) end() error {
	if l.err == nil && l.at != len(l.b) {
		l.fail("%d bytes left over", len(l.b)-l.at)
	}
	return l.err
}

// groth16VK walks a Groth16 verifying key ([α]₁ [β]₁ [β]₂ [γ]₂ [δ]₁ [δ]₂,
// the public bases K, the lists of public inputs each commitment hashes,
// the commitment count and each commitment's key, two G2 points) and
// returns the public bases and the commitments it declares.
func groth16VK(enc encoding, b []byte) (bases, commitments int, err error) {
	l := &layout{enc: enc, b: b}
	l.g1(2, "[α]₁ [β]₁")
	l.g2(2, "[β]₂ [γ]₂")
	l.g1(1, "[δ]₁")
	l.g2(1, "[δ]₂")
	bases = l.count(enc.g1, "public bases")
	l.g1(bases, "public bases")
	for range l.count(4, "committed input lists") {
		l.skip(8*l.count(8, "committed inputs"), "committed inputs")
	}
	commitments = l.count(2*enc.g2, "commitment keys")
	l.g2(2*commitments, "commitment keys")
	return bases, commitments, l.end()
}

// plonkVK walks a PLONK verifying key (the domain's size, its inverse and
// generator, the public input count, the coset shift, the permutation and
// gate selectors' commitments, the BSB22 commitment selectors', the KZG
// key with its precomputed lines, the commitments' constraint indexes)
// and returns the commitment selectors and indexes it declares.
func plonkVK(enc encoding, b []byte) (selectors, indexes int, err error) {
	l := &layout{enc: enc, b: b}
	l.skip(8+2*frBytes+8+frBytes, "domain and public input count")
	l.g1(8, "selector commitments")
	selectors = l.count(enc.g1, "commitment selectors")
	l.g1(selectors, "commitment selectors")
	l.g1(1, "KZG key")
	l.g2(2, "KZG key")
	l.skip(8*enc.lines*2*enc.fp, "KZG lines")
	indexes = l.count(8, "commitment constraint indexes")
	l.skip(8*indexes, "commitment constraint indexes")
	return selectors, indexes, l.end()
}

// groth16Proof walks a Groth16 proof (A, B, C, the commitments, their
// proof of knowledge) and returns the commitments it declares.
func groth16Proof(enc encoding, b []byte) (commitments int, err error) {
	l := &layout{enc: enc, b: b}
	l.g1(1, "A")
	l.g2(1, "B")
	l.g1(1, "C")
	commitments = l.count(enc.g1, "commitments")
	l.g1(commitments, "commitments")
	l.g1(1, "proof of knowledge")
	return commitments, l.end()
}

// plonkProof walks a PLONK proof (L R O, Z, the quotient's three parts,
// the batched opening at ζ with its claimed values, the opening at ζω,
// the BSB22 commitments) and returns the claimed values and commitments
// it declares.
func plonkProof(enc encoding, b []byte) (claimed, commitments int, err error) {
	l := &layout{enc: enc, b: b}
	l.g1(8, "commitments to L R O Z H")
	claimed = l.count(frBytes, "claimed values")
	l.skip(frBytes*claimed, "claimed values")
	l.g1(1, "opening at ζω")
	l.skip(frBytes, "opening at ζω")
	commitments = l.count(enc.g1, "BSB22 commitments")
	l.g1(commitments, "BSB22 commitments")
	return claimed, commitments, l.end()
}
