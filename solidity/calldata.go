package solidity

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bn254"
	plonk "github.com/consensys/gnark/backend/plonk/bn254"
	"github.com/consensys/gnark/backend/witness"
	"golang.org/x/crypto/sha3"

	"github.com/prooflane/prooflane/internal/keyfile"
)

// MaxProofFile bounds a proof file and a public input file Calldata reads.
const MaxProofFile = 1 << 20

// word is an EVM word: 32 bytes, big endian.
const word = 32

// Signature is the verifier function the contract call names: for
// Groth16 "verifyProof(uint256[8],uint256[2],uint256[2],uint256[N])" with
// a commitment (the proof's A B C, the commitment, its proof of
// knowledge, the public inputs) and "verifyProof(uint256[8],uint256[N])"
// without; for PLONK "Verify(bytes,uint256[])" (gnark's MarshalSolidity
// of the proof, the public inputs).
func (k *Key) Signature() string {
	if k.plonk != nil {
		return "Verify(bytes,uint256[])"
	}
	if k.Commitments == 0 {
		return fmt.Sprintf("verifyProof(uint256[8],uint256[%d])", k.Public)
	}
	return fmt.Sprintf("verifyProof(uint256[8],uint256[%d],uint256[2],uint256[%d])", 2*k.Commitments, k.Public)
}

// Calldata returns the contract call (the ABI encoding: the function's
// selector, then its arguments) that verifies a proof against its public
// inputs. proof is a proof file's bytes (gnark's WriteTo or WriteRawTo of
// a BN254 proof of the key's scheme); public is a public input file's
// (gnark's binary public witness), as prooflane writes proof-N.bin and
// public-N.bin. Their lengths are checked before they are decoded.
func (k *Key) Calldata(proof, public []byte) ([]byte, error) {
	inputs, err := k.publicInputs(public)
	if err != nil {
		return nil, fmt.Errorf("public inputs: %w", err)
	}
	call := selector(k.Signature())
	if k.plonk != nil {
		p, err := decodePlonkProof(proof)
		if err != nil {
			return nil, fmt.Errorf("proof: %w", err)
		}
		if len(p.Bsb22Commitments) != k.Commitments {
			return nil, fmt.Errorf("proof: %d BSB22 commitments, the key has %d", len(p.Bsb22Commitments), k.Commitments)
		}
		b := p.MarshalSolidity()
		padded := (len(b) + word - 1) / word * word
		call = appendUint(call, 2*word)                // where the proof's bytes are
		call = appendUint(call, uint64(3*word+padded)) // where the inputs are
		call = appendUint(call, uint64(len(b)))
		call = append(call, b...)
		call = append(call, make([]byte, padded-len(b))...)
		call = appendUint(call, uint64(len(inputs)/word))
		return append(call, inputs...), nil
	}
	p, err := decodeGroth16Proof(proof)
	if err != nil {
		return nil, fmt.Errorf("proof: %w", err)
	}
	if len(p.Commitments) != k.Commitments {
		return nil, fmt.Errorf("proof: %d commitments, the key has %d", len(p.Commitments), k.Commitments)
	}
	// MarshalSolidity: A B C (8 words); with commitments, their count
	// (4 bytes), the commitments and the proof of knowledge (2 words
	// each), which the call takes as arrays of their own.
	b := p.MarshalSolidity()
	call = append(call, b[:8*word]...)
	if k.Commitments > 0 {
		call = append(call, b[8*word+4:]...)
	}
	return append(call, inputs...), nil
}

// publicInputs checks a public witness against the key and returns its
// elements, a word each.
func (k *Key) publicInputs(b []byte) ([]byte, error) {
	if len(b) > MaxProofFile {
		return nil, fmt.Errorf("larger than %d MiB", MaxProofFile>>20)
	}
	if len(b) < 12 {
		return nil, fmt.Errorf("%d bytes, shorter than a public witness's header (12)", len(b))
	}
	if n := uint64(binary.BigEndian.Uint32(b[8:12])); 12+fr.Bytes*n != uint64(len(b)) {
		return nil, fmt.Errorf("declares %d elements (%d bytes), has %d bytes", n, 12+fr.Bytes*n, len(b))
	}
	w, err := witness.New(ecc.BN254.ScalarField())
	if err != nil {
		return nil, err
	}
	if _, err := keyfile.ReadSafely(w.ReadFrom, bytes.NewReader(b)); err != nil {
		return nil, err
	}
	v, ok := w.Vector().(fr.Vector)
	if !ok {
		return nil, fmt.Errorf("not a BN254 witness")
	}
	if len(v) != k.Public {
		return nil, fmt.Errorf("%d, the key takes %d", len(v), k.Public)
	}
	out := make([]byte, 0, len(v)*word)
	for i := range v {
		e := v[i].Bytes()
		out = append(out, e[:]...)
	}
	return out, nil
}

func decodeGroth16Proof(b []byte) (*g16.Proof, error) {
	if len(b) > MaxProofFile {
		return nil, fmt.Errorf("larger than %d MiB", MaxProofFile>>20)
	}
	if _, err := groth16Proof(bn254Encoding, b); err != nil {
		return nil, fmt.Errorf("not a BN254 Groth16 proof: %w", err)
	}
	p := new(g16.Proof)
	if _, err := keyfile.ReadSafely(p.ReadFrom, bytes.NewReader(b)); err != nil {
		return nil, err
	}
	return p, nil
}

func decodePlonkProof(b []byte) (*plonk.Proof, error) {
	if len(b) > MaxProofFile {
		return nil, fmt.Errorf("larger than %d MiB", MaxProofFile>>20)
	}
	claimed, commitments, err := plonkProof(bn254Encoding, b)
	if err != nil {
		return nil, fmt.Errorf("not a BN254 PLONK proof: %w", err)
	}
	// gnark's proof holds a claimed value for each of l r o s1 s2 and the
	// linearised polynomial, and one a BSB22 commitment.
	if claimed != 6+commitments {
		return nil, fmt.Errorf("%d claimed values for %d BSB22 commitments, want %d", claimed, commitments, 6+commitments)
	}
	p := new(plonk.Proof)
	if _, err := keyfile.ReadSafely(p.ReadFrom, bytes.NewReader(b)); err != nil {
		return nil, err
	}
	return p, nil
}

// Accepted reads the answer of a contract call Calldata made that did not
// revert: a Groth16 contract returns nothing (it reverts on a proof it
// rejects), a PLONK contract a bool.
func (k *Key) Accepted(ret []byte) (bool, error) {
	if k.plonk == nil {
		if len(ret) != 0 {
			return false, fmt.Errorf("the contract's verifyProof returned %d bytes, want none", len(ret))
		}
		return true, nil
	}
	if len(ret) != word || new(big.Int).SetBytes(ret).Cmp(big.NewInt(1)) > 0 {
		return false, fmt.Errorf("the contract's Verify returned %x, want a bool", ret)
	}
	return ret[word-1] == 1, nil
}

// selector is a function's ABI selector: the first four bytes of the
// keccak256 of its signature.
func selector(signature string) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(signature))
	return h.Sum(nil)[:4]
}

func appendUint(b []byte, v uint64) []byte {
	b = append(b, make([]byte, word-8)...)
	return binary.BigEndian.AppendUint64(b, v)
}
