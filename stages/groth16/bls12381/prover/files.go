package prover

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/internal/keyfile"
)

// MaxFileBytes bounds a proof or public inputs file: a few hundred bytes
// for any circuit prove makes (32 bytes a public input).
const MaxFileBytes = 64 << 20

// named prefixes err with the file's name when it has one.
func named(verb, name string, err error) error {
	if name == "" {
		return err
	}
	return fmt.Errorf("%s%s: %w", verb, name, err)
}

// DecodeProof reads a proof file's bytes: the commitment count it declares
// is checked against its size before gnark decodes it, and no byte may be
// left over.
func DecodeProof(data []byte) (*g16.Proof, error) {
	var proof g16.Proof
	if err := decodeChecked(data, checkProofLengths, proof.ReadFrom); err != nil {
		return nil, err
	}
	return &proof, nil
}

// DecodePublic reads a public inputs file's bytes (a public witness): the
// count it declares must match its size before gnark decodes it.
func DecodePublic(data []byte) (witness.Witness, error) {
	pub, err := witness.New(ecc.BLS12_381.ScalarField())
	if err != nil {
		return nil, err
	}
	if err := decodeChecked(data, checkPublicLengths, pub.ReadFrom); err != nil {
		return nil, err
	}
	return pub, nil
}

// decodeChecked checks the lengths data's encoding declares against its
// size, and only then decodes it. gnark's decoders allocate whatever a
// length prefix says before reading the elements: a corrupt file claiming
// 2^32 elements would kill the process with an out-of-memory error that
// no recover can catch. A decoder's panic is an error.
func decodeChecked(data []byte, check func([]byte) error, read func(io.Reader) (int64, error)) error {
	if len(data) > MaxFileBytes {
		return fmt.Errorf("corrupt: larger than %d MiB", MaxFileBytes>>20)
	}
	if err := check(data); err != nil {
		return fmt.Errorf("corrupt: %w", err)
	}
	r := bytes.NewReader(data)
	if _, err := keyfile.ReadSafely(read, r); err != nil {
		return err
	}
	if r.Len() != 0 {
		return fmt.Errorf("corrupt: %d trailing bytes", r.Len())
	}
	return nil
}

// checkPublicLengths checks a public witness in gnark's binary form: the
// public and secret counts (4 bytes each), the vector's length (4 bytes),
// then 32 bytes per element.
func checkPublicLengths(b []byte) error {
	if len(b) < 12 {
		return fmt.Errorf("%d bytes, shorter than a witness header (12)", len(b))
	}
	n := uint64(binary.BigEndian.Uint32(b[8:12]))
	if want := 12 + 32*n; uint64(len(b)) != want {
		return fmt.Errorf("declares %d public inputs (%d bytes), has %d bytes", n, want, len(b))
	}
	return nil
}

// checkProofLengths checks the commitment count of a gnark proof (Ar, Bs,
// Krs, then a 4-byte count of G1 commitments, then their proof of
// knowledge) against the bytes left for them.
func checkProofLengths(b []byte) error {
	g1, g2 := curve.SizeOfG1AffineCompressed, curve.SizeOfG2AffineCompressed // as Proof.WriteTo writes them
	if len(b) > 0 && b[0]&0x80 == 0 {
		g1, g2 = curve.SizeOfG1AffineUncompressed, curve.SizeOfG2AffineUncompressed // WriteRawTo
	}
	at := 2*g1 + g2
	if len(b) < at+4 {
		return fmt.Errorf("%d bytes, shorter than a proof (%d)", len(b), at+4+g1)
	}
	n := uint64(binary.BigEndian.Uint32(b[at : at+4]))
	if left := uint64(len(b) - at - 4); n*uint64(g1) > left {
		return fmt.Errorf("declares %d commitments, %d bytes left for them", n, left)
	}
	return nil
}
