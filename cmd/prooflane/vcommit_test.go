package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/stages/vcommit"
)

// The toy second family end to end: prove with the vcommit pipeline on the
// CPU backend, verify against the key cache, refuse a tampered proof and
// another cache's key, and read the run's trace with analyze and simulate.
func TestProveAndVerifyTheVcommitFamily(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "vcommit", "--size", "2^8", "--partitions", "3", "--keys", keysDir, "--out", out, "--progress", "off")
	if rc != 0 {
		t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
	}
	if !strings.Contains(stdout, "3 proofs of vcommit (size 256") || !strings.Contains(stderr, "vcommit setup") {
		t.Errorf("prove: stdout %q, stderr %q", stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
		t.Fatalf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, _, stderr := prooflane(t, "verify", "--keys", keysDir, "--vk", filepath.Join(out, "vk.bin"), out); rc != 2 ||
		!strings.Contains(stderr, "--vk is for proof directories with a verifying key file (groth16, plonk); "+out+" holds vcommit proofs") {
		t.Errorf("verify --vk of a family without a verifying key: exit %d, stderr %q", rc, stderr)
	}
	for _, args := range [][]string{
		{"analyze", filepath.Join(out, "trace.jsonl")},
		{"simulate", "--from", filepath.Join(out, "trace.jsonl"), "--pipeline", "vcommit", "--speed", "5", "--trace-file", filepath.Join(t.TempDir(), "sim.jsonl")},
	} {
		if rc, stdout, stderr := prooflane(t, args...); rc != 0 {
			t.Errorf("%s: exit %d\n%s%s", args[0], rc, stdout, stderr)
		}
	}

	// Another key cache's key of the same size is not the proofs' key.
	other := t.TempDir()
	if rc, _, stderr := prooflane(t, "prove", "--pipeline", "vcommit", "--size", "2^8", "--partitions", "1", "--keys", other, "--out", filepath.Join(t.TempDir(), "o"), "--progress", "off"); rc != 0 {
		t.Fatalf("prove with another cache: exit %d: %s", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, "verify", "--keys", other, out); rc != 1 || !strings.Contains(stderr, "the proofs were made with another key") {
		t.Errorf("verify against another key: exit %d, stderr %q", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, "verify", "--keys", t.TempDir(), out); rc != 1 || !strings.Contains(stderr, "no vcommit key in the cache") {
		t.Errorf("verify with an empty cache: exit %d, stderr %q", rc, stderr)
	}

	// Partition 2's proof replaced by partition 1's: a valid point, the
	// wrong commitment.
	p1, err := os.ReadFile(filepath.Join(out, "proof-1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "proof-2.bin"), p1, 0o644); err != nil {
		t.Fatal(err)
	}
	rc, stdout, stderr = prooflane(t, "verify", "--keys", keysDir, out)
	if rc != 1 || !strings.Contains(stdout, "ok   proof-1.bin") || !strings.Contains(stdout, "FAIL proof-2.bin") || !strings.Contains(stderr, "1 of 3 proofs") {
		t.Errorf("verify of a tampered directory: exit %d\n%s%s", rc, stdout, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "proof-2.bin"), p1[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, stdout, _ := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || !strings.Contains(stdout, "FAIL proof-2.bin: vcommit proof: 10 bytes, want 96") {
		t.Errorf("verify of a truncated proof: exit %d\n%s", rc, stdout)
	}
}

// Flags and manifests that do not fit the vcommit family are refused
// naming the flag or the manifest's field.
func TestVcommitRefusesGroth16FlagsAndBadManifests(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--circuit", "chain"}, `--circuit "chain": pipeline "vcommit" is of the vcommit family, which has no circuits`},
		{[]string{"--size", "2^25"}, "--size 2^25: want 1 to 16777216, the vcommit family's limit on sizes"},
	} {
		args := append([]string{"prove", "--pipeline", "vcommit", "--keys", keysDir, "--out", out}, c.args...)
		if rc, _, stderr := prooflane(t, args...); rc != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", c.args, rc, stderr, c.want)
		}
	}
	if rc, _, stderr := prooflane(t, "prove", "--pipeline", "vcommit", "--size", "2^4", "--partitions", "2", "--keys", keysDir, "--out", out, "--progress", "off"); rc != 0 {
		t.Fatalf("prove: exit %d: %s", rc, stderr)
	}
	path := filepath.Join(out, "manifest.json")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"family": "vcommit"`, `"family": "nope"`, `family "nope" is not one verify reads`},
		{`"size": 16`, `"size": 99999999999`, "size 99999999999: want 1 to 16777216"},
		{`"proof-1.bin"`, `"../proof-1.bin"`, `proofs[1] is "../proof-1.bin", want "proof-1.bin"`},
	} {
		mut := strings.Replace(string(orig), c.from, c.to, 1)
		if mut == string(orig) {
			t.Fatalf("manifest lacks %q:\n%s", c.from, orig)
		}
		if err := os.WriteFile(path, []byte(mut), 0o644); err != nil {
			t.Fatal(err)
		}
		if rc, _, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, path) {
			t.Errorf("manifest with %s: exit %d, stderr %q, want %q naming %s", c.to, rc, stderr, c.want, path)
		}
	}
}

// setup --pipeline makes a family.Prover's key, which a later prove uses
// without setting one up; a second setup finds it cached.
func TestSetupOfTheVcommitFamilysKey(t *testing.T) {
	keysDir := t.TempDir()
	rc, stdout, stderr := prooflane(t, "setup", "--pipeline", "vcommit", "--size", "2^8", "--keys", keysDir)
	if rc != 0 || !strings.Contains(stdout, "vcommit key of size 256:") || !strings.Contains(stderr, "vcommit setup") {
		t.Fatalf("setup: exit %d\n%s%s", rc, stdout, stderr)
	}
	if _, err := os.Stat(vcommit.Cache{Dir: keysDir}.Path(256)); err != nil {
		t.Fatalf("no key file: %v", err)
	}
	if rc, stdout, stderr := prooflane(t, "setup", "--pipeline", "vcommit", "--size", "2^8", "--keys", keysDir); rc != 0 || !strings.Contains(stdout, "vcommit key of size 256 already cached") {
		t.Errorf("second setup: exit %d\n%s%s", rc, stdout, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr = prooflane(t, "prove", "--pipeline", "vcommit", "--size", "2^8", "--partitions", "1", "--keys", keysDir, "--out", out, "--progress", "off")
	if rc != 0 || strings.Contains(stderr, "vcommit setup") {
		t.Errorf("prove on the set-up key: exit %d\n%s%s", rc, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--force"}, `--force: pipeline "vcommit" is of the vcommit family, whose key cache is not redone in place (remove its key file instead)`},
		{[]string{"--circuit", "chain"}, `--circuit "chain": pipeline "vcommit" is of the vcommit family, which has no circuits (leave --circuit out)`},
	} {
		args := append([]string{"setup", "--pipeline", "vcommit", "--size", "2^8", "--keys", keysDir}, c.args...)
		if rc, _, stderr := prooflane(t, args...); rc == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, rc, stderr, c.want)
		}
	}
}
