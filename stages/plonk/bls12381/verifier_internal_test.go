package plonk

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gnarkplonk "github.com/consensys/gnark/backend/plonk"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// committed is a circuit with a BSB22 commitment (api.Commit) and a
// public input: Y = X², the commitment not zero.
type committed struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *committed) Define(api frontend.API) error {
	cm, err := api.(frontend.Committer).Commit(c.X)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(cm, 0)
	api.AssertIsEqual(api.Mul(c.X, c.X), c.Y)
	return nil
}

// committedInstance is committed as a workloads.Instance: X from the seed.
type committedInstance struct{}

func (committedInstance) Circuit() frontend.Circuit { return &committed{} }
func (committedInstance) Assignment(seed uint64) frontend.Circuit {
	x := seed%1000 + 2
	return &committed{X: x, Y: x * x}
}
func (i committedInstance) Unsatisfied(seed uint64) frontend.Circuit {
	c := i.Assignment(seed).(*committed)
	c.Y = c.Y.(uint64) + 1
	return c
}
func (committedInstance) Constraints() int { return 0 }

// The verifier's bounds with commitments: a verifying key file with one
// commitment is read, a proof of a committing circuit (made by gnark's
// prover on the same key) of the size one commitment gives is checked,
// and one without its commitment, or with the commitment changed, is
// refused; a key file whose counts do not make its length is refused
// naming them.
func TestVerifierAcceptsCommitmentsWithinBounds(t *testing.T) {
	spr, err := CompileCircuit("committed", &committed{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := UnsafeSetup(context.Background(), "committed", spr)
	if err != nil {
		t.Fatal(err)
	}
	vkBytes, err := encodeVK(k.VK)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vkFile := filepath.Join(dir, "vk.bin")
	if err := os.WriteFile(vkFile, vkBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	vk, err := readVK(vkFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(vk.Qcp) != 1 || len(vk.CommitmentConstraintIndexes) != 1 || !vk.Qcp[0].Equal(&k.VK.Qcp[0]) {
		t.Fatalf("read %d selectors and %d rows, want the key's one", len(vk.Qcp), len(vk.CommitmentConstraintIndexes))
	}

	const seed = 3
	inst := committedInstance{}
	w, err := workloads.Witness(inst.Assignment(workloads.PartitionSeed(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	proof, err := gnarkplonk.Prove(k.SPR, k.PK, w)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(p *gplonk.Proof) []byte {
		var b bytes.Buffer
		if _, err := p.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	v, err := newVerifyingKey(vk, vkFile)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := w.Public()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := pw.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	good := encode(proof.(*gplonk.Proof))
	if err := v.Verify(family.Files{Proof: good, Public: pub}); err != nil {
		t.Fatalf("a proof with its commitment: %v", err)
	}
	noCommitment := *proof.(*gplonk.Proof)
	noCommitment.Bsb22Commitments = nil
	noCommitment.BatchedProof.ClaimedValues = noCommitment.BatchedProof.ClaimedValues[:6]
	if err := v.Verify(family.Files{Proof: encode(&noCommitment), Public: pub}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("want %d (1 BSB22 commitments)", proofSize(1))) {
		t.Errorf("a proof without its commitment: %v, want its size refused", err)
	}
	moved := *proof.(*gplonk.Proof)
	_, _, g, _ := curve.Generators()
	moved.Bsb22Commitments = []curve.G1Affine{moved.Bsb22Commitments[0]}
	moved.Bsb22Commitments[0].Add(&moved.Bsb22Commitments[0], &g)
	if err := v.Verify(family.Files{Proof: encode(&moved), Public: pub}); err == nil {
		t.Error("a proof with its commitment moved verified")
	}

	// Two selectors and one row, encoded as gnark does: the length fits,
	// the counts do not.
	lopsided, err := encodeVK(&gplonk.VerifyingKey{Qcp: make([]kzg.Digest, 2), CommitmentConstraintIndexes: []uint64{5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vkFile, lopsided, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readVK(vkFile); err == nil || !strings.Contains(err.Error(), "declares 2 BSB22 commitments and 1 commitment rows, not one row a commitment") {
		t.Errorf("two selectors and one row: %v", err)
	}

	// One more selector declared than the file holds, and one row more
	// than selectors: neither makes the file's length.
	l := vkEncoding()
	for _, tc := range []struct {
		off  int64
		v    uint32
		want string
	}{
		{l.qcpAt, 2, fmt.Sprintf("declares 2 BSB22 commitments (api.Commit), more than its %d bytes hold", len(vkBytes))},
		{l.rowsAt(1), 2, "declares 1 BSB22 commitments and 2 commitment rows, which make"},
		{l.qcpAt, 0xffffffff, "declares 4294967295 BSB22 commitments (api.Commit), more than its"},
	} {
		b := append([]byte(nil), vkBytes...)
		binary.BigEndian.PutUint32(b[tc.off:], tc.v)
		if err := os.WriteFile(vkFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readVK(vkFile); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), vkFile) {
			t.Errorf("count %d at %d: %v, want %q naming the file", tc.v, tc.off, err, tc.want)
		}
	}
}
