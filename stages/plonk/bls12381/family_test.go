package plonk_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/stages/family"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// The family.Prover of PLONK: a key from the cache, a job's files checked
// by the job, by the cache's verifying key and by the vk file's; another
// partition's public inputs refused; the user's own keys read and checked
// against the constraint system; gnark's own prover as the baseline.
func TestFamilyFilesVerifyAndBaseline(t *testing.T) {
	f := plonk.Family{}
	ctx := context.Background()
	req := family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "mimc", Size: 50}}
	if _, err := f.Load(ctx, req); !errors.Is(err, family.ErrNotCached) {
		t.Fatalf("empty cache: %v, want family.ErrNotCached", err)
	}
	if _, err := f.Setup(ctx, family.KeyRequest{Dir: req.Dir, System: family.System{Name: "nope", Size: 50}}, io.Discard); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown circuit: %v", err)
	}
	k, err := f.Setup(ctx, req, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	j, err := workloads.Job(k, 2, 42)
	if err != nil {
		t.Fatal(err)
	}
	pj, ok := j.Payload().(*plonk.Job)
	if !ok {
		t.Fatalf("payload %T", j.Payload())
	}
	proofs, err := prove(t, "plonk", pj)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]family.Files, 2)
	for p := range files {
		if files[p], err = j.Files(p, proofs[p]); err != nil {
			t.Fatal(err)
		}
		if err := j.Verify(p, files[p]); err != nil {
			t.Errorf("job's check of partition %d: %v", p, err)
		}
	}
	if err := j.Verify(1, files[0]); err == nil || !strings.Contains(err.Error(), "not the public inputs of its witness") {
		t.Errorf("job: partition 0's files as partition 1's: %v", err)
	}
	vkFile := filepath.Join(t.TempDir(), "vk.bin")
	if err := os.WriteFile(vkFile, k.VerifyingKey().Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fromCache, err := f.VerifyingKey(ctx, req, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := f.VerifyingKey(ctx, req, vkFile, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []family.VerifyingKey{fromCache, fromFile} {
		for p := range files {
			if err := v.Verify(files[p]); err != nil {
				t.Errorf("%s: partition %d: %v", v.From(), p, err)
			}
		}
		swapped := family.Files{Proof: files[0].Proof, Public: files[1].Public}
		if err := v.Verify(swapped); err == nil || !strings.Contains(err.Error(), "does not verify") {
			t.Errorf("%s: partition 0's proof with partition 1's public inputs: %v", v.From(), err)
		}
	}
	// The user's own keys: the cache's key written as gnark writes it.
	pk, ok := plonk.Unwrap(k)
	if !ok {
		t.Fatal("not a plonk key")
	}
	pkFile := filepath.Join(t.TempDir(), "pk.bin")
	var pb bytes.Buffer
	if _, err := pk.PK.WriteTo(&pb); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkFile, pb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	own, rerr := f.ReadKeys(ctx, k.System(), pkFile, vkFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !bytes.Equal(own.VerifyingKey().Bytes(), k.VerifyingKey().Bytes()) {
		t.Error("the user's keys read as another verifying key")
	}
	other, oerr := f.Setup(ctx, family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "chain", Size: 300}}, io.Discard)
	if oerr != nil {
		t.Fatal(oerr)
	}
	ovk := filepath.Join(t.TempDir(), "ovk.bin")
	if err := os.WriteFile(ovk, other.VerifyingKey().Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadKeys(ctx, k.System(), pkFile, ovk); err == nil || !strings.Contains(err.Error(), "holds another verifying key") {
		t.Errorf("another circuit's verifying key: %v", err)
	}
	var b family.Baseline = f
	if err := b.ProveBaseline(j, 1); err != nil {
		t.Errorf("gnark's plonk.Prove: %v", err)
	}
}

// A setup whose context is cancelled stops between its phases, returning
// the context's error and writing no key, forced or not.
func TestSetupCancelledWritesNoKey(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, force := range []bool{false, true} {
		_, err := plonk.Family{}.Setup(ctx, family.KeyRequest{Dir: dir, System: family.System{Name: "chain", Size: 100}, Force: force}, io.Discard)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("force %v: %v, want context.Canceled", force, err)
		}
	}
	if _, err := os.Stat(plonk.Cache{Dir: dir}.Path("chain", 100)); !os.IsNotExist(err) {
		t.Errorf("a cancelled setup wrote its key: %v", err)
	}
}
