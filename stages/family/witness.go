package family

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/internal/regfile"
)

// Inputs are the counts of a constraint system's inputs that a full
// witness holds: public (without R1CS's constant one) and secret.
type Inputs struct{ Public, Secret int }

// witnessHeader is a witness encoding's header: the public and secret
// counts and the vector's length, 4 bytes each, big endian.
const witnessHeader = 12

// elementBytes is an encoded field element's size.
const elementBytes = 32

// MaxWitnessFile bounds a witness file: 2^28 inputs of 32 bytes.
const MaxWitnessFile = witnessHeader + elementBytes<<28

// ReadWitness reads a full witness file (gnark's witness.MarshalBinary,
// public and secret inputs) for a constraint system of inputs in field:
// a regular file of at most MaxWitnessFile bytes whose counts are the
// system's and whose length is what they say, checked before gnark
// decodes it. Errors name the file and the witness's index (its place
// among the job's).
func ReadWitness(ctx context.Context, path string, index int, field *big.Int, in Inputs) (witness.Witness, error) {
	data, err := regfile.ReadFileContext(ctx, path, MaxWitnessFile)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("witness %d (%s): over the limit of %d bytes", index, path, int64(MaxWitnessFile))
	}
	if err != nil {
		return nil, fmt.Errorf("witness %d: %w", index, err)
	}
	w, err := DecodeWitness(data, field, in)
	if err != nil {
		return nil, fmt.Errorf("witness %d (%s): %w", index, path, err)
	}
	return w, nil
}

// DecodeWitness decodes a full witness's bytes for a constraint system
// of inputs in field, refusing (before gnark decodes them) counts that
// are not the system's and a length that is not theirs.
func DecodeWitness(data []byte, field *big.Int, in Inputs) (witness.Witness, error) {
	if len(data) < witnessHeader {
		return nil, fmt.Errorf("%d bytes, shorter than a witness's header (%d): not a witness written by gnark's MarshalBinary", len(data), witnessHeader)
	}
	pub, sec, n := binary.BigEndian.Uint32(data), binary.BigEndian.Uint32(data[4:]), binary.BigEndian.Uint32(data[8:])
	switch {
	case uint64(pub)+uint64(sec) != uint64(n):
		return nil, fmt.Errorf("declares %d public and %d secret inputs but %d values: not a witness written by gnark's MarshalBinary", pub, sec, n)
	case int(pub) != in.Public || int(sec) != in.Secret:
		return nil, fmt.Errorf("%d public and %d secret inputs, but the constraint system has %d and %d: a witness of another circuit, or a public witness (want the full one)", pub, sec, in.Public, in.Secret)
	case uint64(len(data)) != witnessHeader+uint64(n)*elementBytes:
		return nil, fmt.Errorf("%d bytes, want %d for %d inputs: truncated or padded", len(data), witnessHeader+uint64(n)*elementBytes, n)
	}
	w, err := witness.New(field)
	if err != nil {
		return nil, err
	}
	if err := w.UnmarshalBinary(data); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return w, nil
}
