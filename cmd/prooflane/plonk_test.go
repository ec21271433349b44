package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PLONK end to end on the CPU backend: prove with the plonk pipeline (its
// default circuit, chain), verify against the key cache (gnark's
// plonk.Verify), refuse a tampered proof and another cache's key, read the
// run's trace with analyze and simulate, and bench both PLONK layouts with
// every proof verified.
func TestProveVerifyAndBenchThePlonkFamily(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "plonk", "--size", "100", "--partitions", "2", "--keys", keysDir, "--out", out, "--progress", "off")
	if rc != 0 {
		t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
	}
	if !strings.Contains(stdout, "2 proofs of") || !strings.Contains(stdout, `pipeline "plonk"`) || !strings.Contains(stderr, "plonk setup") {
		t.Errorf("prove: stdout %q, stderr %q", stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Fatalf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	for _, args := range [][]string{
		{"analyze", filepath.Join(out, "trace.jsonl")},
		{"simulate", "--from", filepath.Join(out, "trace.jsonl"), "--pipeline", "plonk-single-lock", "--speed", "5", "--trace-file", filepath.Join(t.TempDir(), "sim.jsonl")},
	} {
		if rc, stdout, stderr := prooflane(t, args...); rc != 0 {
			t.Errorf("%s: exit %d\n%s%s", args[0], rc, stdout, stderr)
		}
	}

	other := t.TempDir()
	if rc, _, stderr := prooflane(t, "setup", "--pipeline", "plonk", "--size", "100", "--keys", other); rc != 0 {
		t.Fatalf("setup of another cache: exit %d: %s", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, "verify", "--keys", other, out); rc != 1 || !strings.Contains(stderr, "the proofs were made with another key") {
		t.Errorf("verify against another key: exit %d, stderr %q", rc, stderr)
	}

	// Partition 1's proof replaced by partition 0's: a well-formed proof
	// of other public inputs.
	p0, err := os.ReadFile(filepath.Join(out, "proof-0.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "proof-1.bin"), p0, 0o644); err != nil {
		t.Fatal(err)
	}
	rc, stdout, stderr = prooflane(t, "verify", "--keys", keysDir, out)
	if rc != 1 || !strings.Contains(stdout, "ok   proof-0.bin") || !strings.Contains(stdout, "FAIL proof-1.bin") {
		t.Errorf("verify of a tampered directory: exit %d\n%s%s", rc, stdout, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "proof-1.bin"), p0[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, stdout, _ := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || !strings.Contains(stdout, "FAIL proof-1.bin: "+filepath.Join(out, "proof-1.bin")+": 100 bytes, want") {
		t.Errorf("verify of a truncated proof: exit %d\n%s", rc, stdout)
	}

	rc, bout, stderr := prooflane(t, "bench", "--size", "100", "--keys", keysDir, "--gnark", "1",
		"--partitions", "2", "--jobs", "1", "--inflight", "2", "plonk", "plonk-single-lock")
	if rc != 0 {
		t.Fatalf("bench: exit %d:\n%s", rc, stderr)
	}
	if !strings.Contains(bout, "| gnark plonk.Prove ") || !strings.Contains(bout, "| plonk ") || !strings.Contains(bout, "| plonk-single-lock ") ||
		strings.Count(stderr, "every one verified") != 2 {
		t.Errorf("bench stdout:\n%s\nstderr:\n%s", bout, stderr)
	}
}

// Another shipped circuit through --circuit, checked with the directory's
// own verifying key (verify --vk) as well as the cache's.
func TestProveAnotherCircuitWithPlonkAndVerifyWithItsVK(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "plonk-single-lock", "--circuit", "mimc", "--size", "60", "--partitions", "2", "--keys", keysDir, "--out", out, "--progress", "off"); rc != 0 {
		t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
	}
	for _, name := range []string{"proof-1.bin", "public-1.bin", "vk.bin"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("prove wrote no %s: %v", name, err)
		}
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Errorf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--vk", filepath.Join(out, "vk.bin"), out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Errorf("verify --vk: exit %d\n%s%s", rc, stdout, stderr)
	}
	// Partition 1's public inputs replaced by partition 0's.
	pub0, err := os.ReadFile(filepath.Join(out, "public-0.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "public-1.bin"), pub0, 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, stdout, _ := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || !strings.Contains(stdout, "public-1.bin: not the public inputs of circuit") {
		t.Errorf("verify with another partition's public inputs: exit %d\n%s", rc, stdout)
	}
}
