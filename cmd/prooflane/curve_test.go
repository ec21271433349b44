package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
)

// A user's circuit on BN254 with both families: prove --curve bn254
// (the user's own keys, then the key cache's) writes proofs gnark's BN254
// verifier accepts and a manifest naming the curve; verify accepts them
// and refuses --curve bls12-381, naming both curves.
func TestProveAndVerifyOnBN254(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			f := newUserFilesOn(t, ecc.BN254, system)
			keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			rc, stdout, stderr := prooflane(t, f.proveArgs(system, keysDir, out, true)...)
			if rc != 0 || !strings.Contains(stdout, "3 proofs of circuit-") {
				t.Fatalf("prove --curve bn254: exit %d\n%s%s", rc, stdout, stderr)
			}
			f.checkWithGnark(t, system, out)
			var m manifest
			if b, err := os.ReadFile(filepath.Join(out, manifestFile)); err != nil || json.Unmarshal(b, &m) != nil || m.Curve != "bn254" {
				t.Errorf("manifest curve %q (%v), want bn254", m.Curve, err)
			}
			if rc, stdout, stderr := prooflane(t, "verify", "--vk", f.vk, "--curve", "bn254", out); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
				t.Errorf("verify --curve bn254: exit %d\n%s%s", rc, stdout, stderr)
			}
			rc, _, stderr = prooflane(t, "verify", "--vk", f.vk, "--curve", "bls12-381", out)
			if rc != exitFailure || !strings.Contains(stderr, "bn254 proofs") || !strings.Contains(stderr, "not bls12-381") {
				t.Errorf("verify --curve bls12-381 of bn254 proofs: exit %d\n%s", rc, stderr)
			}
			cached := filepath.Join(t.TempDir(), "cached")
			if rc, stdout, stderr := prooflane(t, f.proveArgs(system, keysDir, cached, false)...); rc != 0 {
				t.Fatalf("prove --curve bn254 with the cache's keys: exit %d\n%s%s", rc, stdout, stderr)
			}
			if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, cached); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
				t.Errorf("verify against the cache: exit %d\n%s%s", rc, stdout, stderr)
			}
		})
	}
}

// A constraint system or keys of one curve given with the other are
// refused before any proving, naming both curves; a --curve of no curve
// is a usage mistake.
func TestTheOtherCurvesFilesAreRefusedNamingBothCurves(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			bn := newUserFilesOn(t, ecc.BN254, system)
			bls := newUserFiles(t, system)
			out := filepath.Join(t.TempDir(), "out")
			asBLS := bn
			asBLS.curve = ecc.BLS12_381
			rc, stdout, stderr := prooflane(t, asBLS.proveArgs(system, t.TempDir(), out, false)...)
			if rc != exitFailure || !strings.Contains(stderr, "BN254's scalar field, not BLS12-381's") || stdout != "" {
				t.Errorf("a bn254 constraint system proved as bls12-381: exit %d\n%s%s", rc, stdout, stderr)
			}
			mixed := bn
			mixed.pk, mixed.vk = bls.pk, bls.vk
			rc, _, stderr = prooflane(t, mixed.proveArgs(system, t.TempDir(), out, true)...)
			if rc != exitFailure || !strings.Contains(stderr, "is a bls12-381 key, not bn254") {
				t.Errorf("bls12-381 keys for a bn254 circuit: exit %d\n%s", rc, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out written for the other curve's files: %v", err)
			}
		})
	}
	rc, _, stderr := prooflane(t, "prove", "--curve", "bn256", "--out", filepath.Join(t.TempDir(), "out"))
	if rc != exitUsage || !strings.Contains(stderr, `unknown curve "bn256"`) {
		t.Errorf("--curve bn256: exit %d\n%s", rc, stderr)
	}
}

// The built-in circuits prove on BN254 too: prove --curve bn254 --circuit
// chain, then verify from the key cache (the manifest's curve); setup and
// bench --curve bn254 set up and prove (each proof verified) on BN254.
func TestProveABuiltInCircuitOnBN254(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr := prooflane(t, "prove", "--curve", "bn254", "--circuit", "chain", "--size", "64", "--keys", keysDir, "--out", out, "--progress", "off", "--set", "partitions=2")
	if rc != 0 {
		t.Fatalf("prove --curve bn254: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Errorf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	entries, _ := filepath.Glob(filepath.Join(keysDir, "*bn254*"))
	if len(entries) == 0 {
		t.Errorf("no key of the cache names bn254")
	}
	if rc, stdout, stderr := prooflane(t, "setup", "--curve", "bn254", "--circuit", "mimc", "--size", "256", "--keys", keysDir); rc != 0 || !strings.Contains(stderr+stdout, "mimc-256-bn254.pk") {
		t.Errorf("setup --curve bn254: exit %d\n%s%s", rc, stdout, stderr)
	}
	for _, pipeline := range []string{"groth16", "plonk"} {
		rc, stdout, stderr = prooflane(t, "bench", "--curve", "bn254", "--circuit", "mimc", "--size", "256", "--jobs", "1", "--partitions", "2", "--gnark", "1", "--keys", keysDir, pipeline)
		if rc != 0 || !strings.Contains(stderr, "every one verified") {
			t.Errorf("bench --curve bn254 %s: exit %d\n%s%s", pipeline, rc, stdout, stderr)
		}
	}
}

// A BN254 job of the service: submit --curve bn254, then await writes a
// directory whose manifest names the curve, and verify accepts it with
// the client's key cache and with the job's verifying key.
func TestSubmitAwaitAndVerifyOnBN254(t *testing.T) {
	for _, fam := range []string{"groth16", "plonk"} {
		t.Run(fam, func(t *testing.T) {
			keysDir := t.TempDir()
			url := testService(t, keysDir, nil)
			rc, stdout, stderr := prooflane(t, "submit", "--addr", url, "--pipeline", fam, "--size", "64", "--partitions", "2", "--seed", "5", "--curve", "bn254")
			if rc != 0 {
				t.Fatalf("submit --curve bn254: exit %d: %s", rc, stderr)
			}
			out := filepath.Join(t.TempDir(), "out")
			rc, stdout, stderr = prooflane(t, "await", "--addr", url, "--keys", keysDir, "--out", out, strings.TrimSpace(stdout))
			if rc != 0 || !strings.Contains(stdout, "2 proofs, verified with ") {
				t.Fatalf("await: exit %d\n%s%s", rc, stdout, stderr)
			}
			for _, args := range [][]string{{"--keys", keysDir}, {"--vk", filepath.Join(out, "vk.bin"), "--curve", "bn254"}} {
				if rc, stdout, stderr := prooflane(t, append(append([]string{"verify"}, args...), out)...); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
					t.Errorf("verify %v: exit %d\n%s%s", args, rc, stdout, stderr)
				}
			}
		})
	}
}
