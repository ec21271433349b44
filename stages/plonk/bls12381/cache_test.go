package plonk_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"

	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
)

func TestKeyCacheSavesLoadsAndRefusesCorruptFiles(t *testing.T) {
	c := plonk.Cache{Dir: t.TempDir()}
	if _, _, err := c.Load(t.Context(), "chain", 100); !errors.Is(err, plonk.ErrNotCached) {
		t.Fatalf("empty cache: %v, want ErrNotCached", err)
	}
	made, _, err := c.LoadOrSetup(t.Context(), "chain", 100, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	k, inst, err := c.Load(t.Context(), "chain", 100)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != made.Name {
		t.Fatalf("loaded key %s, saved %s", k.Name, made.Name)
	}
	ws := witnesses(t, inst, 1, 3, -1)
	proofs := proveJob(t, k, ws)
	if err := verify(t, made, ws[0], proofs[0]); err != nil {
		t.Fatalf("a proof made with the loaded key, checked against the saved one: %v", err)
	}

	path := c.Path("chain", 100)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), orig...)
	flipped[len(flipped)/2] ^= 1
	if err := os.WriteFile(path, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Load(t.Context(), "chain", 100); err == nil || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), path) {
		t.Errorf("flipped byte: %v, want a checksum mismatch naming %s", err, path)
	}
	if err := os.WriteFile(path, orig[:len(orig)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Load(t.Context(), "chain", 100); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("truncated: %v, want corrupt", err)
	}
	// Another size's key under this name: its lengths are refused before
	// decoding.
	other, _, err := plonk.Cache{Dir: t.TempDir()}.LoadOrSetup(t.Context(), "chain", 600, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := (plonk.Cache{Dir: filepath.Dir(path)}).Save(other, 100); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Load(t.Context(), "chain", 100); err == nil || !strings.Contains(err.Error(), "canonical srs declares 2051 points, the circuit's domain of 256 needs 259") {
		t.Errorf("a key of another domain: %v", err)
	}
}

func TestReadSRSReadsGnarkSerializationAndBoundsItsCount(t *testing.T) {
	kd := keyOf(t, "chain", 200)
	srs, err := kzg.NewSRS(uint64(kd.key.DomainSize())+3, big.NewInt(424242))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ceremony.srs")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srs.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	read, err := plonk.ReadSRS(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := plonk.SetupSRS(context.Background(), "chain", kd.key.SPR, read)
	if err != nil {
		t.Fatal(err)
	}
	ws := witnesses(t, kd.inst, 1, 9, -1)
	proofs := proveJob(t, k, ws)
	if err := verify(t, k, ws[0], proofs[0]); err != nil {
		t.Fatalf("a proof on a key from a read srs: %v", err)
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint32(b, 1<<30)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := plonk.ReadSRS(t.Context(), path); err == nil || !strings.Contains(err.Error(), "above the limit of") {
		t.Errorf("a count of 2^30: %v, want refused naming the limit", err)
	}
	binary.BigEndian.PutUint32(b, 100000)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := plonk.ReadSRS(t.Context(), path); err == nil || !strings.Contains(err.Error(), "more than its") {
		t.Errorf("a count beyond the file: %v", err)
	}
	small, _ := kzg.NewSRS(20, big.NewInt(5))
	if _, err := plonk.SetupSRS(context.Background(), "chain", kd.key.SPR, small); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("needs %d", kd.key.DomainSize()+3)) {
		t.Errorf("an srs too small for the circuit: %v", err)
	}
}

// A setup killed while writing leaves the key file's temporary name
// behind; the next setup of that key removes it (under the key's lock),
// and leaves another key's alone.
func TestKeyCacheSetupRemovesWhatAKilledSetupLeft(t *testing.T) {
	c := plonk.Cache{Dir: t.TempDir()}
	left := c.Path("chain", 100) + ".tmp123456"
	other := c.Path("chain", 200) + ".tmp654321"
	for _, p := range []string{left, other} {
		if err := os.WriteFile(p, []byte("half a key"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, _, err := c.LoadOrSetup(t.Context(), "chain", 100, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s, left by a killed setup, is still there after LoadOrSetup: %v", left, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the other key's %s: %v", other, err)
	}
	if err := os.WriteFile(left, []byte("half a key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(k, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there after Save: %v", left, err)
	}
	if _, _, err := c.Load(t.Context(), "chain", 100); err != nil {
		t.Errorf("the saved key: %v", err)
	}
}
