package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	gnarksolidity "github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/internal/evmtest"
	"github.com/prooflane/prooflane/solidity"
)

// prove --commitment-hash keccak256 makes Groth16 proofs of a circuit that
// commits (emulated: std/math/emulated's api.Commit) for gnark's Solidity
// verifier: the manifest records the hash and verify checks with it (the
// manifest without it fails); gnark's verifier accepts each proof with
// its keccak256 option and rejects it without; export solidity writes the
// contract with --commitment-hash keccak256 alone, and the contract
// accepts the proof on the EVM, rejecting it tampered or with another
// partition's public inputs.
func TestKeccakCommitmentHashProofsVerifyWithGnarkAndOnTheEVM(t *testing.T) {
	keys, dir := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if rc, stdout, stderr := prooflane(t, "prove", "--curve", "bn254", "--circuit", "emulated", "--size", "2^10", "--partitions", "2",
		"--commitment-hash", "keccak256", "--keys", keys, "--out", dir, "--progress", "off"); rc != 0 {
		t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
	}
	manifestPath := filepath.Join(dir, manifestFile)
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.CommitmentHash != "keccak256" {
		t.Fatalf("manifest commitment_hash %q (%v), want keccak256", m.CommitmentHash, err)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keys, dir); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Errorf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	checkKeccakWithGnark(t, dir, 2)
	vk := filepath.Join(dir, "vk.bin")
	contract := filepath.Join(t.TempDir(), "Verifier.sol")
	if rc, stdout, stderr := prooflane(t, "export", "solidity", "--vk", vk, "--out", contract); rc != exitFailure || !strings.Contains(stderr, "prove with --commitment-hash keccak256, and export the contract with --commitment-hash keccak256") {
		t.Errorf("export solidity without --commitment-hash: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "export", "solidity", "--commitment-hash", "keccak256", "--vk", vk, "--out", contract); rc != 0 || stderr != "" {
		t.Fatalf("export solidity --commitment-hash keccak256: exit %d\n%s%s", rc, stdout, stderr)
	}
	t.Run("evm", func(t *testing.T) {
		evmtest.Solc(t) // skips without solc, saying how to install it
		key, err := solidity.ReadKey(vk)
		if err != nil {
			t.Fatal(err)
		}
		if key.Commitments != 1 {
			t.Fatalf("the key has %d commitments, want 1: the contract would not hash one", key.Commitments)
		}
		checkDirOnTheEVM(t, dir, key, contract)
	})
	// The manifest's hash is what verify checks with: without it, the
	// default hash rejects the proofs.
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "commitment_hash")
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifestPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keys, dir); rc != exitFailure || !strings.Contains(stdout, "FAIL proof-0.bin: proof does not verify") {
		t.Errorf("verify of the keccak256 proofs with the default hash: exit %d\n%s%s", rc, stdout, stderr)
	}
}

// checkKeccakWithGnark checks the proof directory dir's n BN254 proofs
// with gnark's verifier: each verifies with gnark's option for its
// Solidity verifier (keccak256) and fails with its default hash.
func checkKeccakWithGnark(t *testing.T, dir string, n int) {
	t.Helper()
	vk := groth16.NewVerifyingKey(ecc.BN254)
	readInto(t, filepath.Join(dir, "vk.bin"), vk.ReadFrom)
	for p := range n {
		proof := groth16.NewProof(ecc.BN254)
		readInto(t, filepath.Join(dir, proofFile(p)), proof.ReadFrom)
		pub, err := witness.New(ecc.BN254.ScalarField())
		if err != nil {
			t.Fatal(err)
		}
		readInto(t, filepath.Join(dir, publicFile(p)), pub.ReadFrom)
		if err := groth16.Verify(proof, vk, pub, gnarksolidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
			t.Errorf("partition %d: gnark's verifier with keccak256 rejects the proof: %v", p, err)
		}
		if err := groth16.Verify(proof, vk, pub); err == nil {
			t.Errorf("partition %d: gnark's verifier with its default hash accepts a keccak256 proof", p)
		}
	}
}

// Through the service: `submit --commitment-hash keccak256 --await --out`
// writes proofs gnark's verifier accepts with its keccak256 option alone,
// a manifest that records the hash, and a directory `verify` accepts;
// PLONK's jobs are refused the hash before anything is queued.
func TestSubmitWithKeccakCommitmentHashWritesWhatVerifyAccepts(t *testing.T) {
	keys := t.TempDir()
	url := serveProcess(t, keys)
	dir := filepath.Join(t.TempDir(), "out")
	submit := []string{"submit", "--addr", url, "--curve", "bn254", "--circuit", "emulated", "--size", "2^10", "--partitions", "2"}
	rc, stdout, stderr := prooflane(t, append(submit, "--commitment-hash", "keccak256", "--await", "--out", dir, "--keys", keys)...)
	if rc != 0 || !strings.Contains(stdout, "2 proofs, verified with ") {
		t.Fatalf("submit --await: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, _ := prooflane(t, "status", "--addr", url); rc != 0 || !strings.Contains(stdout, "groth16 emulated/1024 on bn254 (keccak256 commitments), 2/2 partitions") {
		t.Errorf("status: exit %d\n%s", rc, stdout)
	}
	raw, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.CommitmentHash != "keccak256" {
		t.Errorf("manifest commitment_hash %q (%v), want keccak256", m.CommitmentHash, err)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keys, dir); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Errorf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	// gnark's check reads the directory's vk.bin: the key cache's file,
	// which await does not copy.
	if err := os.WriteFile(filepath.Join(dir, "vk.bin"), mustRead(t, filepath.Join(keys, "emulated-1024-bn254.vk")), 0o644); err != nil {
		t.Fatal(err)
	}
	checkKeccakWithGnark(t, dir, 2)
	rc, _, stderr = prooflane(t, append(submit, "--pipeline", "plonk", "--commitment-hash", "keccak256")...)
	if rc != exitFailure || !strings.Contains(stderr, `commitment_hash "keccak256": pipeline "plonk" makes plonk proofs`) {
		t.Errorf("submit --pipeline plonk --commitment-hash keccak256: exit %d\n%s", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, append(submit, "--commitment-hash", "sha3")...); rc != exitUsage || !strings.Contains(stderr, `--commitment-hash: "sha3" is not a commitment hash`) {
		t.Errorf("submit --commitment-hash sha3: exit %d\n%s", rc, stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readInto decodes the file at path with read (a gnark ReadFrom).
func readInto(t *testing.T, path string, read func(io.Reader) (int64, error)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read(bytes.NewReader(b)); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// A --commitment-hash prove cannot use is a usage mistake, before any
// work: a value of no hash, and keccak256 with a pipeline whose family
// hashes its commitments one way (PLONK's, which gnark's contract checks
// as they are).
func TestProveRefusesACommitmentHashItCannotUse(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--commitment-hash", "sha256"}, `prooflane prove: --commitment-hash: "sha256" is not a commitment hash: want one of rfc9380, keccak256`},
		{[]string{"--commitment-hash", "keccak256", "--pipeline", "plonk"}, `prooflane prove: --commitment-hash keccak256: pipeline "plonk" makes plonk proofs, which hash their commitments with rfc9380 only; groth16 pipelines take it`},
	} {
		args := append([]string{"prove", "--circuit", "emulated", "--size", "2^10", "--keys", t.TempDir(), "--out", out}, c.args...)
		rc, stdout, stderr := prooflane(t, args...)
		if rc != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("prove %q: exit %d\nstdout %q\nstderr %q\nwant exit %d and %q", c.args, rc, stdout, stderr, exitUsage, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("prove %q wrote --out: %v", c.args, err)
		}
	}
}
