package solidity

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	g16bls "github.com/consensys/gnark/backend/groth16/bls12-381"
	g16 "github.com/consensys/gnark/backend/groth16/bn254"
	plonkbls "github.com/consensys/gnark/backend/plonk/bls12-381"
	plonk "github.com/consensys/gnark/backend/plonk/bn254"

	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/internal/regfile"
)

// MaxKeyFile bounds a verifying key file: a BN254 Groth16 key of that
// size has some half a million public inputs, far beyond what a contract
// can hold.
const MaxKeyFile = 16 << 20

// The proof systems a key is of: the families' names.
const (
	Groth16 = "groth16"
	PLONK   = "plonk"
)

// Key is a BN254 verifying key read from a file.
type Key struct {
	// File is the file it was read from.
	File string
	// Scheme is Groth16 or PLONK.
	Scheme string
	// Public is the number of public inputs a proof is checked against:
	// the public witness's, the contract call's.
	Public int
	// Commitments is the commitments its proofs carry: Groth16's Pedersen
	// commitments, PLONK's BSB22 commitments.
	Commitments int

	groth16 *g16.VerifyingKey
	plonk   *plonk.VerifyingKey
}

// ErrNotBN254 is wrapped by ReadKey's error for a verifying key of another
// curve.
var ErrNotBN254 = errors.New("not on BN254")

// candidate is one kind of verifying key a file may hold: its scheme and
// curve, how its lengths are checked, and gnark's decoder for it.
type candidate struct {
	scheme string
	enc    encoding
	check  func(encoding, []byte) error
	decode func([]byte) (any, error)
}

var candidates = []candidate{
	{Groth16, bn254Encoding, checkGroth16VK, decodeWith(func() readerFrom { return new(g16.VerifyingKey) })},
	{PLONK, bn254Encoding, checkPlonkVK, decodeWith(func() readerFrom { return new(plonk.VerifyingKey) })},
	{Groth16, bls12381Encoding, checkGroth16VK, decodeWith(func() readerFrom { return new(g16bls.VerifyingKey) })},
	{PLONK, bls12381Encoding, checkPlonkVK, decodeWith(func() readerFrom { return new(plonkbls.VerifyingKey) })},
}

type readerFrom interface {
	ReadFrom(io.Reader) (int64, error)
}

// decodeWith decodes a key with gnark's ReadFrom (points checked on the
// curve and in the subgroup), a panic an error, nothing left over.
func decodeWith(newKey func() readerFrom) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		k := newKey()
		r := bytes.NewReader(b)
		if _, err := keyfile.ReadSafely(k.ReadFrom, r); err != nil {
			return nil, err
		}
		if r.Len() != 0 {
			return nil, fmt.Errorf("%d bytes left over", r.Len())
		}
		return k, nil
	}
}

func checkGroth16VK(enc encoding, b []byte) error { _, _, err := groth16VK(enc, b); return err }
func checkPlonkVK(enc encoding, b []byte) error   { _, _, err := plonkVK(enc, b); return err }

// ReadKey reads the verifying key file at path: gnark's encoding of a
// Groth16 or PLONK verifying key (WriteTo or WriteRawTo), as prooflane
// writes vk.bin and its key cache's Groth16 keys, with or without the
// cache's checksum trailer (checked when there). Its scheme and curve are
// told from its layout, every length it declares checked against its
// size before gnark decodes it. A key on another curve than BN254 is an
// error wrapping ErrNotBN254 that names its curve; a file that holds no
// verifying key is an error naming the file.
func ReadKey(path string) (*Key, error) {
	data, err := regfile.ReadFile(path, MaxKeyFile)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("verifying key %q: larger than %d MiB, more than a contract can hold", path, MaxKeyFile>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("verifying key: %w", err)
	}
	content, err := keyfile.Content(data)
	if err != nil {
		return nil, fmt.Errorf("verifying key %q is corrupt: %w", path, err)
	}
	for _, c := range candidates {
		if c.check(c.enc, content) != nil {
			continue
		}
		vk, err := c.decode(content)
		if err != nil {
			return nil, fmt.Errorf("verifying key %q (a %s key on %s by its layout) is corrupt: %w", path, c.scheme, c.enc.name, err)
		}
		if c.enc.curve != ecc.BN254 {
			return nil, fmt.Errorf("verifying key %q is a %s key on %s, %w: Ethereum verifies BN254 pairings only (its precompiles, EIP-196 and EIP-197); set the circuit up on BN254 (prooflane setup --curve bn254) for a verifier contract", path, c.scheme, c.enc.name, ErrNotBN254)
		}
		return newKey(path, vk)
	}
	return nil, fmt.Errorf("%q is not a verifying key: it holds no Groth16 or PLONK verifying key in gnark's encoding, on BN254 or BLS12-381 (%d bytes)", path, len(content))
}

// newKey is the Key of a decoded BN254 verifying key.
func newKey(path string, vk any) (*Key, error) {
	switch vk := vk.(type) {
	case *g16.VerifyingKey:
		c := len(vk.PublicAndCommitmentCommitted)
		public := len(vk.G1.K) - 1 - c
		if public < 0 || len(vk.CommitmentKeys) != c {
			return nil, fmt.Errorf("verifying key %q is corrupt: %d public bases, %d commitment keys for %d commitments", path, len(vk.G1.K), len(vk.CommitmentKeys), c)
		}
		for i, inputs := range vk.PublicAndCommitmentCommitted {
			for _, in := range inputs {
				if in < 1 || in > public {
					return nil, fmt.Errorf("verifying key %q is corrupt: commitment %d hashes public input %d of %d", path, i, in, public)
				}
			}
		}
		return &Key{File: path, Scheme: Groth16, Public: public, Commitments: c, groth16: vk}, nil
	case *plonk.VerifyingKey:
		if len(vk.Qcp) != len(vk.CommitmentConstraintIndexes) {
			return nil, fmt.Errorf("verifying key %q is corrupt: %d BSB22 commitment selectors, %d commitment constraints", path, len(vk.Qcp), len(vk.CommitmentConstraintIndexes))
		}
		return &Key{File: path, Scheme: PLONK, Public: int(vk.NbPublicVariables), Commitments: len(vk.Qcp), plonk: vk}, nil
	}
	return nil, fmt.Errorf("verifying key %q: a %T", path, vk)
}

// String describes the key: "a Groth16 key on BN254 with 2 public inputs
// and 1 commitment".
func (k *Key) String() string {
	s := fmt.Sprintf("a %s key on BN254 with %s", k.Scheme, plural(k.Public, "public input"))
	if k.Commitments > 0 {
		s += " and " + plural(k.Commitments, "commitment")
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ErrCommitmentHash is wrapped by WriteContract's error for a Groth16 key
// with a commitment, written without KeccakCommitments.
var ErrCommitmentHash = errors.New("gnark's contract hashes the commitment with keccak256")

// Option changes what WriteContract writes.
type Option func(*options)

type options struct{ keccak bool }

// KeccakCommitments says the Groth16 proofs the contract is for hash
// their commitment to the field with keccak256, as gnark's prover does
// with solidity.WithProverTargetSolidityVerifier(backend.GROTH16) and
// prooflane's with the keccak256 commitment hash (prove
// --commitment-hash keccak256): the hash gnark's contract computes. Both
// provers hash it by default with RFC 9380 hash to field, which the
// contract does not, so a Groth16 key with a commitment is refused
// without this option.
// PLONK keys need no option: gnark's PLONK contract hashes BSB22
// commitments as gnark's prover does by default.
func KeccakCommitments() Option { return func(o *options) { o.keccak = true } }

// WriteContract writes gnark's Solidity verifier contract for the key
// (pragma solidity ^0.8.0): for Groth16, contract Verifier, whose
// verifyProof reverts on a proof it rejects; for PLONK, contract
// PlonkVerifier, whose Verify returns false or reverts. Calldata makes
// their call from a proof; Accepted reads the answer. gnark's Groth16
// contract takes one public input at least, checks one commitment at
// most, and hashes it with keccak256 (KeccakCommitments).
func (k *Key) WriteContract(w io.Writer, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if k.groth16 == nil {
		return k.plonk.ExportSolidity(w)
	}
	switch {
	case k.Public == 0:
		return fmt.Errorf("verifying key %q has no public inputs: gnark's Groth16 contract takes one at least (Solidity has no array of length 0)", k.File)
	case k.Commitments > 1:
		return fmt.Errorf("verifying key %q has %d commitments: gnark's Groth16 contract checks one at most", k.File, k.Commitments)
	case k.Commitments == 1 && !o.keccak:
		return fmt.Errorf("verifying key %q has a commitment: %w, and rejects proofs that hashed it with RFC 9380 hash to field (prooflane's and gnark's default)", k.File, ErrCommitmentHash)
	}
	return k.groth16.ExportSolidity(w)
}
