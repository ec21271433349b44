package plonk_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/plonk"
)

// The family.Prover of PLONK: a key from the cache, a job's files checked
// by the job, by a verifier from the cache and by one from the vk file;
// another partition's public inputs, gnark's own prover as the baseline.
func TestFamilyFilesVerifyAndBaseline(t *testing.T) {
	f := plonk.Family{}
	ctx := context.Background()
	req := family.KeyRequest{Dir: t.TempDir(), Circuit: "mimc", Size: 50}
	if _, err := f.Load(ctx, req); !errors.Is(err, family.ErrNotCached) {
		t.Fatalf("empty cache: %v, want family.ErrNotCached", err)
	}
	if _, err := f.Setup(ctx, family.KeyRequest{Dir: req.Dir, Circuit: "nope", Size: 50}, io.Discard); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown circuit: %v", err)
	}
	k, err := f.Setup(ctx, req, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	j, err := k.NewJob(2, 42)
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
	vkBytes, err := j.VK()
	if err != nil {
		t.Fatal(err)
	}
	vkFile := filepath.Join(t.TempDir(), "vk.bin")
	if err := os.WriteFile(vkFile, vkBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	vreq := family.VerifyRequest{KeyRequest: req, Manifest: "manifest.json", Key: k.Name(), Partitions: 2, Seed: 42}
	fromCache, err := f.Verifier(ctx, vreq)
	if err != nil {
		t.Fatal(err)
	}
	vreq.VKFile = vkFile
	fromFile, err := f.Verifier(ctx, vreq)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []family.Verifier{fromCache, fromFile} {
		for p := range files {
			if err := v.Verify(p, files[p]); err != nil {
				t.Errorf("%s: partition %d: %v", v.From(), p, err)
			}
		}
		swapped := family.Files{Proof: files[0].Proof, Public: files[1].Public}
		if err := v.Verify(1, swapped); err == nil {
			t.Errorf("%s: partition 0's proof verified as partition 1's", v.From())
		}
		if err := v.Verify(0, family.Files{Proof: files[0].Proof, Public: files[1].Public}); err == nil || !strings.Contains(err.Error(), "public inputs are not the ones") {
			t.Errorf("%s: another partition's public inputs: %v", v.From(), err)
		}
	}
	vreq.VKFile, vreq.Key = "", "plonk/mimc/0/other"
	if _, err := f.Verifier(ctx, vreq); err == nil || !strings.Contains(err.Error(), "made with another key") {
		t.Errorf("a manifest naming another key: %v", err)
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
		_, err := plonk.Family{}.Setup(ctx, family.KeyRequest{Dir: dir, Size: 100, Force: force}, io.Discard)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("force %v: %v, want context.Canceled", force, err)
		}
	}
	if _, err := os.Stat(plonk.Cache{Dir: dir}.Path("chain", 100)); !os.IsNotExist(err) {
		t.Errorf("a cancelled setup wrote its key: %v", err)
	}
}
