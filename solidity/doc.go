// Package solidity makes the Ethereum verifier contract of a BN254
// verifying key, and the contract call that checks a proof.
//
// ReadKey reads a verifying key file as prooflane writes it (vk.bin, the
// Groth16 key cache's .vk with its checksum trailer) or as gnark's WriteTo
// writes it, tells a Groth16 key from a PLONK key and BN254 from
// BLS12-381 by its layout (every length checked before gnark decodes it),
// and refuses a key of another curve than BN254 (ErrNotBN254): Ethereum's
// precompiles (EIP-196, EIP-197) add, multiply and pair BN254 points only.
//
// Key.WriteContract writes gnark v0.14's Solidity verifier for the key:
// Groth16's contract Verifier, with at most one commitment (which it
// hashes with keccak256: KeccakCommitments), and PLONK's contract
// PlonkVerifier, BSB22 commitments included. Key.Calldata turns a proof
// file and a public input file into the ABI-encoded call of the
// contract's verifier function (Key.Signature), and Key.Accepted reads
// what a call that did not revert returned. The package links no Ethereum
// client: the encoding is the ABI's, written here.
package solidity
