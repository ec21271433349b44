// Package vcommit is an example of a stage family of its own run on the
// engine with the device contract: a vector commitment. Its key is a
// random set of G1 bases; a partition's result is the commitment
// sum_i s_i*B_i to the partition's scalar vector s, derived from the
// job's seed; Verify recomputes the MSM on the host with gnark-crypto
// and compares. A partition runs two stages: vcommit.scalars derives its
// vector on the host, vcommit.commit uploads it and runs the MSM on the
// device, so the stage holding the device's compute lock does no host
// work. vcommit.yaml is its pipeline; the tests build a registry with its
// types and run jobs of it through runtime.NewEngine, as a program reusing
// the runtime for its own GPU work would.
package vcommit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/stages"
)

const (
	// TypeNameScalars is the family's host stage: a partition's vector.
	TypeNameScalars = "vcommit.scalars"
	// TypeNameCommit is the family's device stage: the vector's MSM.
	TypeNameCommit = "vcommit.commit"
	// TypeScalars is the scalars stage's output, a *Vector.
	TypeScalars stages.DataType = "vcommit.scalars"
	// TypeCommitment is the commit stage's output, a *curve.G1Affine: the
	// family's proof.
	TypeCommitment stages.DataType = "vcommit.commitment"
	// MaxSize bounds a key's size (its number of bases), before anything
	// of that size is allocated: 2^24 bases are 1.5 GiB in memory.
	MaxSize = 1 << 24
	// ProofBytes is the size of a proof file: one uncompressed G1 point.
	ProofBytes = curve.SizeOfG1AffineUncompressed
)

// Family is the vector commitment family as stages/family sees it.
type Family struct{}

// Name is the prefix of the family's stage types.
func (Family) Name() string { return "vcommit" }

// ProofType is the commit stage's output.
func (Family) ProofType() stages.DataType { return TypeCommitment }

// Key is a base set. Name identifies it on a device (its bases are resident
// under it), derived from the bases so two keys never share a name.
type Key struct {
	Name  string
	Bases []curve.G1Affine
}

// checkSize checks a key size against MaxSize.
func checkSize(size int) error {
	if size < 1 || size > MaxSize {
		return fmt.Errorf("vcommit size %d: want 1 to %d (MaxSize)", size, MaxSize)
	}
	return nil
}

// NewKey returns a key of size bases, each the generator times a scalar
// from crypto/rand.
func NewKey(size int) (*Key, error) {
	if err := checkSize(size); err != nil {
		return nil, err
	}
	scalars := make([]fr.Element, size)
	for i := range scalars {
		if _, err := scalars[i].SetRandom(); err != nil {
			return nil, fmt.Errorf("vcommit key: %w", err)
		}
	}
	_, _, g1, _ := curve.Generators()
	return newKey(curve.BatchScalarMultiplicationG1(&g1, scalars)), nil
}

func newKey(bases []curve.G1Affine) *Key {
	h := sha256.New()
	for i := range bases {
		b := bases[i].RawBytes()
		h.Write(b[:])
	}
	return &Key{Name: "vcommit/" + hex.EncodeToString(h.Sum(nil)[:8]), Bases: bases}
}

// Job is the payload of a vcommit pipeline's runtime.Job: the key and the
// seed partition p's scalar vector comes from.
type Job struct {
	Key        *Key
	Seed       uint64
	Partitions int
}

// NewJob returns the job of partitions vectors from seed.
func NewJob(key *Key, partitions int, seed uint64) (*Job, error) {
	if key == nil || len(key.Bases) == 0 {
		return nil, errors.New("vcommit job: no key")
	}
	if partitions < 1 {
		return nil, fmt.Errorf("vcommit job: %d partitions, want at least 1", partitions)
	}
	return &Job{Key: key, Seed: seed, Partitions: partitions}, nil
}

// Scalars returns partition p's vector, one scalar a base, the same for
// the same seed and p.
func (j *Job) Scalars(p int) []fr.Element {
	r := mrand.New(mrand.NewPCG(j.Seed, uint64(p)^0x7663_6f6d_6d69_7400))
	s := make([]fr.Element, len(j.Key.Bases))
	var b [fr.Bytes]byte
	for i := range s {
		for k := 0; k < fr.Bytes; k += 8 {
			v := r.Uint64()
			for x := range 8 {
				b[k+x] = byte(v >> (8 * x))
			}
		}
		s[i].SetBytes(b[:]) // reduced modulo r
	}
	return s
}

// Commit computes the commitment to scalars on the host with gnark-crypto:
// the reference the device's MSM is checked against.
func Commit(key *Key, scalars []fr.Element) (curve.G1Affine, error) {
	var jac curve.G1Jac
	var out curve.G1Affine
	if len(scalars) != len(key.Bases) {
		return out, fmt.Errorf("vcommit: %d scalars for %d bases", len(scalars), len(key.Bases))
	}
	if _, err := jac.MultiExp(key.Bases, scalars, ecc.MultiExpConfig{NbTasks: runtime.GOMAXPROCS(0)}); err != nil {
		return out, err
	}
	out.FromJacobian(&jac)
	return out, nil
}

// Verify checks partition p's proof: it is the commitment to the
// partition's vector under the job's key.
func (j *Job) Verify(p int, proof *curve.G1Affine) error {
	if p < 0 || p >= j.Partitions {
		return fmt.Errorf("vcommit: partition %d of %d", p, j.Partitions)
	}
	want, err := Commit(j.Key, j.Scalars(p))
	if err != nil {
		return err
	}
	if !want.Equal(proof) {
		return fmt.Errorf("vcommit partition %d: the commitment is not the one of seed %d's vector under key %s", p, j.Seed, j.Key.Name)
	}
	return nil
}

// EncodeProof is a proof's file contents: the point, uncompressed.
func EncodeProof(proof *curve.G1Affine) []byte {
	b := proof.RawBytes()
	return b[:]
}

// DecodeProof reads a proof file's contents: exactly ProofBytes bytes of a
// point on the curve, in the subgroup.
func DecodeProof(data []byte) (*curve.G1Affine, error) {
	if len(data) != ProofBytes {
		return nil, fmt.Errorf("vcommit proof: %d bytes, want %d", len(data), ProofBytes)
	}
	var p curve.G1Affine
	if _, err := p.SetBytes(data); err != nil {
		return nil, fmt.Errorf("vcommit proof: %w", err)
	}
	return &p, nil
}
