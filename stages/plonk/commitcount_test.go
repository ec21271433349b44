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

	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"

	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/plonk"
)

// A key file of the cache, or a verifying key file, whose last field,
// the count of commitment constraint indexes, is not zero is refused
// before gnark's decoder allocates what it says (2^32 counts are 32 GiB):
// the plonk stages make no commitments.
func TestACountOfCommitmentIndexesIsRefusedBeforeDecoding(t *testing.T) {
	dir := t.TempDir()
	c := plonk.Cache{Dir: dir}
	k, _, err := c.LoadOrSetup(t.Context(), "mimc", 50, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var empty bytes.Buffer
	if _, err := (&gplonk.VerifyingKey{}).WriteRawTo(&empty); err != nil {
		t.Fatal(err)
	}
	path := c.Path("mimc", 50)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), orig[:len(orig)-keyfile.TrailerLen]...)
	binary.BigEndian.PutUint32(b[empty.Len()-4:], 0xffffffff)
	if err := os.WriteFile(path, append(b, keyfile.Trailer(b)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Load(t.Context(), "mimc", 50); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "declares 4294967295 commitments") {
		t.Errorf("key file: %v, want the count refused naming %s", err, path)
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
	if _, err := (plonk.Family{}).VerifyingKey(context.Background(), req, vkFile, 0); err == nil || !strings.Contains(err.Error(), vkFile) || !strings.Contains(err.Error(), "declares commitments") {
		t.Errorf("verifying key file: %v, want the count refused naming %s", err, vkFile)
	}
}
