package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/internal/evmtest"
	"github.com/prooflane/prooflane/solidity"
)

// export solidity writes gnark's contract for a BN254 Groth16 key (the
// key cache's file, checksum trailer included) and a PLONK key with a
// BSB22 commitment (vk.bin); the contract it wrote accepts the proof on
// the EVM and rejects a tampered one, fed the call export calldata
// printed.
func TestExportSolidityWritesAContractThatVerifiesOnTheEVM(t *testing.T) {
	for _, f := range []evmtest.Fixture{evmtest.Groth16(t, false), evmtest.Plonk(t, true)} {
		key, err := solidity.ReadKey(f.VK)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "Verifier.sol")
		rc, stdout, stderr := prooflane(t, "export", "solidity", "--vk", f.VK, "--out", out)
		want := "wrote " + out + ": the verifier of " + key.String() + " (" + f.VK + "); its function " + key.Signature() + "\n"
		if rc != 0 || stdout != want || stderr != "" {
			t.Fatalf("export solidity: exit %d\nstdout %q\nwant   %q\nstderr %s", rc, stdout, want, stderr)
		}
		src, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var lib bytes.Buffer
		if err := key.WriteContract(&lib); err != nil || !bytes.Equal(src, lib.Bytes()) {
			t.Errorf("%s: the file is not the library's contract (%v)", key.Scheme, err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
			t.Errorf("%s: %d files beside the contract, want none", key.Scheme, len(entries)-1)
		}
		dir := t.TempDir()
		proof, public, tampered := writeTestFile(t, dir, "proof-0.bin", f.Proof), writeTestFile(t, dir, "public-0.bin", f.Public), writeTestFile(t, dir, "tampered.bin", f.Tampered)
		call := func(proof string) []byte {
			rc, stdout, stderr := prooflane(t, "export", "calldata", "--vk", f.VK, "--proof", proof, "--public", public)
			if rc != 0 || !strings.HasPrefix(stdout, "0x") || stderr != "" {
				t.Fatalf("export calldata: exit %d\n%s%s", rc, stdout, stderr)
			}
			data, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(stdout), "0x"))
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
		good, bad := call(proof), call(tampered)
		if want, err := key.Calldata(f.Proof, f.Public); err != nil || !bytes.Equal(good, want) {
			t.Errorf("%s: export calldata printed another call than the library's (%v)", key.Scheme, err)
		}
		if os.Getenv(evmtest.SolcVariable) == "" {
			continue // the EVM check below skips without solc; the rest ran
		}
		v := evmtest.DeployContract(t, key, src)
		if ret, err := v.Chain.Call(t, v.Address, good); err != nil {
			t.Errorf("%s: the contract reverted on the proof: %v", key.Scheme, err)
		} else if ok, err := key.Accepted(ret); !ok || err != nil {
			t.Errorf("%s: the contract rejects the proof (%v)", key.Scheme, err)
		}
		if ret, err := v.Chain.Call(t, v.Address, bad); err == nil {
			if ok, _ := key.Accepted(ret); ok {
				t.Errorf("%s: the contract accepts the tampered proof", key.Scheme)
			}
		}
	}
	evmtest.Solc(t) // says, in the test's output, what was left out
}

func writeTestFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// export refuses, naming the file: a BLS12-381 key (with its curve and the
// curve to set up with), a file that holds no verifying key, a Groth16 key
// with a commitment without --commitment-hash keccak256 (its contract
// would reject proofs hashed as by default), and
// an --out that is the key; nothing is written, the exit code is 1.
// Mistakes on the command line exit 2.
func TestExportRefusesWhatMakesNoContract(t *testing.T) {
	blsG16, blsPlonk := evmtest.BLS12381Keys(t)
	g, gc := evmtest.Groth16(t, false), evmtest.Groth16(t, true)
	dir := t.TempDir()
	notKey := writeTestFile(t, dir, "proof-0.bin", g.Proof)
	out := filepath.Join(dir, "Verifier.sol")
	for _, c := range []struct {
		args []string
		rc   int
		want string
	}{
		{[]string{"solidity", "--vk", blsG16, "--out", out}, 1, `prooflane export: verifying key "` + blsG16 + `" is a groth16 key on BLS12-381, not on BN254: Ethereum verifies BN254 pairings only (its precompiles, EIP-196 and EIP-197); set the circuit up on BN254 (prooflane setup --curve bn254) for a verifier contract`},
		{[]string{"solidity", "--vk", blsPlonk, "--out", out}, 1, `is a plonk key on BLS12-381, not on BN254`},
		{[]string{"solidity", "--vk", notKey, "--out", out}, 1, `prooflane export: "` + notKey + `" is not a verifying key: it holds no Groth16 or PLONK verifying key in gnark's encoding, on BN254 or BLS12-381`},
		{[]string{"solidity", "--vk", filepath.Join(dir, "missing"), "--out", out}, 1, `prooflane export: verifying key: open ` + filepath.Join(dir, "missing")},
		{[]string{"solidity", "--vk", gc.VK, "--out", out}, 1, `prooflane export: verifying key "` + gc.VK + `" has a commitment: gnark's contract hashes the commitment with keccak256, and rejects proofs that hashed it with RFC 9380 hash to field (prooflane's and gnark's default): prove with --commitment-hash keccak256, and export the contract with --commitment-hash keccak256`},
		{[]string{"solidity", "--vk", gc.VK, "--out", out, "--commitment-hash", "rfc9380"}, 1, `has a commitment: gnark's contract hashes the commitment with keccak256`},
		{[]string{"solidity", "--vk", g.VK, "--out", g.VK}, 1, `prooflane export: --out ` + g.VK + ` is the verifying key --vk ` + g.VK},
		{[]string{"solidity", "--vk", g.VK, "--out", filepath.Join(dir, "no", "such", "dir", "V.sol")}, 1, `prooflane export: write ` + filepath.Join(dir, "no", "such", "dir", "V.sol") + ": "},
		{[]string{"calldata", "--vk", g.VK, "--proof", notKey, "--public", notKey}, 1, `prooflane export: ` + notKey + ` and ` + notKey + ` for ` + g.VK + `: public inputs: `},
		{[]string{"calldata", "--vk", g.VK, "--proof", filepath.Join(dir, "missing"), "--public", notKey}, 1, `prooflane export: proof: open ` + filepath.Join(dir, "missing")},
		{nil, 2, "prooflane export: export takes solidity or calldata\n"},
		{[]string{"solidty", "--vk", g.VK}, 2, `prooflane export: export takes solidity or calldata, got "solidty" (did you mean "solidity"?)`},
		{[]string{"solidity", "--out", out}, 2, "prooflane export: export solidity needs --vk FILE, the verifying key"},
		{[]string{"solidity", "--vk", g.VK}, 2, "prooflane export: export solidity needs --out FILE, where the contract goes"},
		{[]string{"solidity", "--vk", g.VK, "--out", out, "extra"}, 2, `prooflane export: export solidity takes no arguments, got ["extra"]`},
		{[]string{"solidity", "--vk", g.VK, "--out", out, "--proof", notKey}, 2, "prooflane export: --proof and --public are export calldata's"},
		{[]string{"calldata", "--vk", g.VK, "--proof", notKey}, 2, "prooflane export: export calldata needs --proof FILE and --public FILE"},
		{[]string{"calldata", "--vk", g.VK, "--proof", notKey, "--public", notKey, "--out", out}, 2, "prooflane export: --out is export solidity's"},
		{[]string{"solidity", "--vk", g.VK, "--out", out, "--commitment-hash", "sha256"}, 2, `prooflane export: --commitment-hash: "sha256" is not a commitment hash: want one of rfc9380, keccak256`},
		{[]string{"calldata", "--vk", g.VK, "--proof", notKey, "--public", notKey, "--commitment-hash", "keccak256"}, 2, "prooflane export: --commitment-hash is export solidity's"},
		{[]string{"solidity", "--vk", g.VK, "--otu", out}, 2, "flag provided but not defined: -otu (did you mean --out?)"},
	} {
		rc, stdout, stderr := prooflane(t, append([]string{"export"}, c.args...)...)
		if rc != c.rc || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("export %q: exit %d\nstdout %q\nstderr %q\nwant exit %d and %q", c.args, rc, stdout, stderr, c.rc, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("export %q wrote %s", c.args, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the output's directory, want the proof alone (no temporary left)", len(entries))
	}
}

// prooflane's own BN254 proofs, as prove writes them, verify on the EVM
// with the contract export solidity writes for prove's vk.bin: Groth16
// and PLONK of a circuit without commitments and PLONK of one with a
// BSB22 commitment. A tampered proof and another partition's public
// inputs are rejected.
func TestProoflanesBN254ProofsVerifyOnTheEVM(t *testing.T) {
	evmtest.Solc(t) // skips without solc, saying how to install it
	keys := t.TempDir()
	for _, c := range []struct{ pipeline, circuit string }{{"groth16", "chain"}, {"plonk", "chain"}, {"plonk", "emulated"}} {
		t.Run(c.pipeline+"-"+c.circuit, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if rc, stdout, stderr := prooflane(t, "prove", "--curve", "bn254", "--pipeline", c.pipeline, "--circuit", c.circuit,
				"--size", "2^10", "--partitions", "2", "--keys", keys, "--out", dir); rc != 0 {
				t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
			}
			vk := filepath.Join(dir, "vk.bin")
			key, err := solidity.ReadKey(vk)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "Verifier.sol")
			if rc, stdout, stderr := prooflane(t, "export", "solidity", "--vk", vk, "--out", out); rc != 0 || stderr != "" {
				t.Fatalf("export solidity: exit %d\n%s%s", rc, stdout, stderr)
			}
			checkDirOnTheEVM(t, dir, key, out)
		})
	}
}

// checkDirOnTheEVM deploys the contract source file contract for key on
// the simulated chain and checks proof-0.bin of the proof directory dir:
// the contract accepts it with public-0.bin, and rejects it tampered and
// with public-1.bin, another partition's public inputs.
func checkDirOnTheEVM(t *testing.T, dir string, key *solidity.Key, contract string) {
	t.Helper()
	src, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	proof, public, other := read("proof-0.bin"), read("public-0.bin"), read("public-1.bin")
	if bytes.Equal(public, other) {
		t.Fatal("the two partitions' public inputs are the same: the wrong-inputs case would test nothing")
	}
	tampered := bytes.Clone(proof)
	tampered[len(tampered)-1] ^= 1
	v := evmtest.DeployContract(t, key, src)
	verdict := func(proof, public []byte) (bool, error) {
		data, err := key.Calldata(proof, public)
		if err != nil {
			return false, err // a tampered proof may not decode: refused before the EVM
		}
		ret, err := v.Chain.Call(t, v.Address, data)
		if err != nil {
			return false, err
		}
		return key.Accepted(ret)
	}
	if ok, err := verdict(proof, public); !ok {
		t.Errorf("the contract rejects prooflane's proof (%v)", err)
	}
	if ok, _ := verdict(tampered, public); ok {
		t.Error("the contract accepts a tampered proof")
	}
	if ok, _ := verdict(proof, other); ok {
		t.Error("the contract accepts the proof with another partition's public inputs")
	}
}
