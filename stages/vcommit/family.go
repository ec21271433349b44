package vcommit

import (
	"fmt"
	"io"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/stages/family"
)

// MaxSize is the family's bound on a key's size.
func (Family) MaxSize() int { return MaxSize }

// SetupJob loads or makes the key of size in keysDir.
func (Family) SetupJob(keysDir string, size, partitions int, seed uint64, log io.Writer) (family.Job, error) {
	k, err := Cache{Dir: keysDir}.LoadOrSetup(size, log)
	if err != nil {
		return nil, err
	}
	return NewJob(k, partitions, seed)
}

// LoadJob loads the key of size from keysDir; ErrNotCached when it is not
// there.
func (Family) LoadJob(keysDir string, size, partitions int, seed uint64) (family.Job, error) {
	k, err := Cache{Dir: keysDir}.Load(size)
	if err != nil {
		return nil, err
	}
	return NewJob(k, partitions, seed)
}

// Payload is the job itself: the commit stage reads a *Job.
func (j *Job) Payload() any { return j }

// KeyName is the key's name.
func (j *Job) KeyName() string { return j.Key.Name }

// EncodeProof encodes the commit stage's output.
func (j *Job) EncodeProof(partition int, output any) ([]byte, error) {
	p, ok := output.(*curve.G1Affine)
	if !ok || p == nil {
		return nil, fmt.Errorf("partition %d: output %T, want the commitment (*bls12381.G1Affine)", partition, output)
	}
	return EncodeProof(p), nil
}

// VerifyProof decodes and verifies a proof file's contents.
func (j *Job) VerifyProof(partition int, data []byte) error {
	p, err := DecodeProof(data)
	if err != nil {
		return err
	}
	return j.Verify(partition, p)
}

var _ family.Prover = Family{}
