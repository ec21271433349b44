package plonk_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/stages/family"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// rewrite replaces the key file at path by orig with the 4 bytes at off
// set to v, under a valid checksum.
func rewrite(t *testing.T, path string, orig []byte, off int, v uint32) {
	t.Helper()
	b := append([]byte(nil), orig[:len(orig)-keyfile.TrailerLen]...)
	binary.BigEndian.PutUint32(b[off:], v)
	if err := os.WriteFile(path, append(b, keyfile.Trailer(b)...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// emptyVK is the length of an encoded verifying key without commitments.
func emptyVK(t *testing.T) int {
	var b bytes.Buffer
	if _, err := (&gplonk.VerifyingKey{}).WriteRawTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// qcpAt is where an encoded verifying key's count of commitment
// selectors sits: the count's last byte is the first that differs from a
// key with one.
func qcpAt(t *testing.T) int {
	var none, one bytes.Buffer
	if _, err := (&gplonk.VerifyingKey{}).WriteRawTo(&none); err != nil {
		t.Fatal(err)
	}
	if _, err := (&gplonk.VerifyingKey{Qcp: make([]kzg.Digest, 1)}).WriteRawTo(&one); err != nil {
		t.Fatal(err)
	}
	i := 0
	for none.Bytes()[i] == one.Bytes()[i] {
		i++
	}
	return i - 3
}

// A key file of the cache, or a verifying key file, declaring counts of
// BSB22 commitments or commitment rows that the constraint system (for
// the cache) or the file's length (for a verifying key file) does not
// bound is refused before gnark's decoder allocates what they say (2^32
// rows are 32 GiB to it).
func TestCommitmentCountsAreBoundedBeforeDecoding(t *testing.T) {
	dir := t.TempDir()
	c := plonk.Cache{Dir: dir}
	k, _, err := c.LoadOrSetup(t.Context(), "mimc", 50, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	path := c.Path("mimc", 50)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The rows' count is the verifying key's last field; the selectors'
	// count sits where one more selector changes the encoding.
	rowsAt := emptyVK(t) - 4
	for _, tc := range []struct {
		off  int
		want string
	}{
		{rowsAt, "declares 0 BSB22 commitments and 4294967295 commitment rows, the circuit's constraint system has 0 commitments"},
		{qcpAt(t), "declares 4294967295 BSB22 commitments (api.Commit), more than its"},
	} {
		rewrite(t, path, orig, tc.off, 0xffffffff)
		if _, _, err := c.Load(t.Context(), "mimc", 50); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("key file: %v, want %q naming %s", err, tc.want, path)
		}
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	var vk bytes.Buffer
	if _, err := k.VK.WriteTo(&vk); err != nil {
		t.Fatal(err)
	}
	vkb := vk.Bytes()
	binary.BigEndian.PutUint32(vkb[len(vkb)-4:], 0xffffffff)
	vkFile := filepath.Join(t.TempDir(), "vk.bin")
	if err := os.WriteFile(vkFile, vkb, 0o644); err != nil {
		t.Fatal(err)
	}
	req := family.KeyRequest{Dir: dir, System: family.System{Name: "mimc", Size: 50}}
	want := "declares 0 BSB22 commitments and 4294967295 commitment rows"
	if _, err := (plonk.Family{}).VerifyingKey(context.Background(), req, vkFile, 0); err == nil || !strings.Contains(err.Error(), vkFile) || !strings.Contains(err.Error(), want) {
		t.Errorf("verifying key file: %v, want %q naming %s", err, want, vkFile)
	}
}

// A committing circuit's key goes through the cache: saved with its
// commitment selectors and rows, loaded again without a setup, proving;
// the same file under the name of a circuit without commitments is
// refused, naming both counts.
func TestACommittingCircuitsKeyIsCachedAndLoaded(t *testing.T) {
	ctx := t.Context()
	c := plonk.Cache{Dir: t.TempDir()}
	g := gadgets[0]
	spr, err := plonk.CompileCircuit(g.name, g.new())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := c.LoadOrSetupSystem(ctx, g.name, 1, spr, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "plonk setup") {
		t.Fatalf("no setup ran: %q", log.String())
	}
	log.Reset()
	k, err := c.LoadOrSetupSystem(ctx, g.name, 1, spr, &log)
	if err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 || k.Commitments() != 1 || len(k.VK.Qcp) != 1 || len(k.VK.CommitmentConstraintIndexes) != 1 {
		t.Fatalf("loaded again: log %q, %d commitments, %d selectors, %d rows; want no setup and one of each",
			log.String(), k.Commitments(), len(k.VK.Qcp), len(k.VK.CommitmentConstraintIndexes))
	}
	ws := gadgetWitnesses(t, g.assign, 1, 9)
	if err := verify(t, k, ws[0], proveJob(t, k, ws)[0]); err != nil {
		t.Errorf("a proof with the loaded key: %v", err)
	}

	data, err := os.ReadFile(c.Path(g.name, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path("chain", 1), data, 0o644); err != nil {
		t.Fatal(err)
	}
	plain, _, err := plonk.Compile("chain", 2)
	if err != nil {
		t.Fatal(err)
	}
	want := "declares 1 BSB22 commitments and 1 commitment rows, the circuit's constraint system has 0 commitments"
	if _, err := c.LoadOrSetupSystem(ctx, "chain", 1, plain, io.Discard); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a committing key for a circuit without commitments: %v, want %q", err, want)
	}
}

// A key file written before the stages made commitments (testdata: chain
// at size 20, a commitment-free circuit, written by the cache then) loads
// and proves.
func TestAKeyFileOfTheFormerFormatLoads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "old-format", "plonk-chain-20.pk"))
	if err != nil {
		t.Fatal(err)
	}
	c := plonk.Cache{Dir: t.TempDir()}
	if err := os.WriteFile(c.Path("chain", 20), data, 0o644); err != nil {
		t.Fatal(err)
	}
	k, inst, err := c.Load(t.Context(), "chain", 20)
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]witness.Witness, 2)
	for p := range ws {
		if ws[p], err = workloads.Witness(inst.Assignment(uint64(p) + 1)); err != nil {
			t.Fatal(err)
		}
	}
	for p, pr := range proveJob(t, k, ws) {
		if err := verify(t, k, ws[p], pr); err != nil {
			t.Errorf("partition %d with the former key: %v", p, err)
		}
	}
}
