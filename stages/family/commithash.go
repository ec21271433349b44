package family

import (
	"fmt"
	"slices"
	"strings"
)

// CommitmentHash names the hash a proof's commitments are hashed to a
// field element with, where the family lets the user choose it
// (CommitmentHashing): the prover and the verifier must use the same.
type CommitmentHash string

const (
	// RFC9380 is gnark's default: the hash to field of RFC 9380 (SHA-256
	// expanded with gnark's commitment domain), what gnark's prover and
	// verifier use when given no hash.
	RFC9380 CommitmentHash = "rfc9380"
	// Keccak256 is Ethereum's keccak256, the hash gnark's Solidity
	// verifier of a Groth16 key with a commitment computes (gnark's
	// solidity.WithProverTargetSolidityVerifier).
	Keccak256 CommitmentHash = "keccak256"
)

// CommitmentHashes are the hashes ParseCommitmentHash takes, the default
// first.
var CommitmentHashes = []CommitmentHash{RFC9380, Keccak256}

// ParseCommitmentHash reads a commitment hash's name; "" is RFC9380.
func ParseCommitmentHash(s string) (CommitmentHash, error) {
	if s == "" {
		return RFC9380, nil
	}
	for _, h := range CommitmentHashes {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, len(CommitmentHashes))
	for i, h := range CommitmentHashes {
		names[i] = string(h)
	}
	return "", fmt.Errorf("%q is not a commitment hash: want one of %s", s, strings.Join(names, ", "))
}

// CommitmentHashing is an optional capability of a Prover whose proofs
// hash their commitments with a hash the user chooses (Groth16's, whose
// Solidity verifier hashes with Keccak256). Its jobs are CommitmentHashJob
// and its verifying keys CommitmentHashKey. A family without it makes and
// checks its proofs with its own hash alone: the commands refuse another
// hash for it before any work.
type CommitmentHashing interface {
	// CommitmentHashes are the hashes the family's proofs take.
	CommitmentHashes() []CommitmentHash
}

// CommitmentHashJob is a Job of a CommitmentHashing family.
type CommitmentHashJob interface {
	// SetCommitmentHash makes the job, before it runs, hash its proofs'
	// commitments with h and check them with h.
	SetCommitmentHash(h CommitmentHash) error
}

// CommitmentHashKey is a VerifyingKey of a CommitmentHashing family.
type CommitmentHashKey interface {
	// WithCommitmentHash is the key checking proofs whose commitments
	// were hashed with h; the key itself is unchanged (it may be shared).
	WithCommitmentHash(h CommitmentHash) (VerifyingKey, error)
}

// TakesCommitmentHash reports whether p's proofs can be made and checked
// with h: RFC9380, every family's default, or one of a CommitmentHashing
// family's hashes.
func TakesCommitmentHash(p Prover, h CommitmentHash) bool {
	if h == RFC9380 || h == "" {
		return true
	}
	ch, ok := p.(CommitmentHashing)
	return ok && slices.Contains(ch.CommitmentHashes(), h)
}

// SetCommitmentHash makes job hash its proofs' commitments with h: nothing
// to do for RFC9380 (or ""), an error for another hash and a job that is
// not a CommitmentHashJob.
func SetCommitmentHash(job Job, h CommitmentHash) error {
	if h == RFC9380 || h == "" {
		return nil
	}
	cj, ok := job.(CommitmentHashJob)
	if !ok {
		return fmt.Errorf("commitment hash %q: a %T hashes its commitments one way only", h, job)
	}
	return cj.SetCommitmentHash(h)
}

// VerifyingKeyWithHash is vk checking proofs whose commitments were hashed
// with h: vk itself for RFC9380 (or ""), an error for another hash and a
// key that is not a CommitmentHashKey.
func VerifyingKeyWithHash(vk VerifyingKey, h CommitmentHash) (VerifyingKey, error) {
	if h == RFC9380 || h == "" {
		return vk, nil
	}
	ck, ok := vk.(CommitmentHashKey)
	if !ok {
		return nil, fmt.Errorf("commitment hash %q: the verifying key %s checks commitments hashed one way only", h, vk.From())
	}
	return ck.WithCommitmentHash(h)
}

// CommitmentHashesOf names the hashes p's proofs take, the default first
// ("rfc9380, keccak256").
func CommitmentHashesOf(p Prover) string {
	var names []string
	for _, h := range CommitmentHashes {
		if TakesCommitmentHash(p, h) {
			names = append(names, string(h))
		}
	}
	return strings.Join(names, ", ")
}
