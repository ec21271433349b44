package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/internal/usercircuit"
	"github.com/prooflane/prooflane/stages/family"
)

// userCubic is a user's own circuit, defined outside the product;
// squares is another, for keys that are not userCubic's.
type (
	userCubic = usercircuit.Cubic
	squares   = usercircuit.Squares
)

// userFiles are a user's files of one circuit for one proof system: the
// constraint system, keys and witnesses, all in gnark's encodings.
type userFiles struct {
	ccs, pk, vk string
	witnesses   []string
	vkey        any // groth16.VerifyingKey or plonk.VerifyingKey
	publics     []witness.Witness
	curve       ecc.ID
}

// newUserFiles compiles userCubic for system, makes its keys with gnark's
// setup and three witnesses, and writes them all into a fresh directory.
func newUserFiles(t *testing.T, system string) userFiles {
	t.Helper()
	return newUserFilesOn(t, ecc.BLS12_381, system)
}

// newUserFilesOn is newUserFiles on curve.
func newUserFilesOn(t *testing.T, curve ecc.ID, system string) userFiles {
	t.Helper()
	dir := t.TempDir()
	ccs := usercircuit.Compile(t, curve, system, &userCubic{})
	f := userFiles{ccs: usercircuit.WriteTo(t, dir, "circuit.ccs", ccs), curve: curve}
	f.pk, f.vk, f.vkey = usercircuit.Setup(t, system, ccs, dir)
	for i := range int64(3) {
		full, pub := usercircuit.Witness(t, curve, usercircuit.CubicAssignment(3+i, 7*i+1))
		f.witnesses = append(f.witnesses, writeFile(t, dir, "w"+string(rune('0'+i))+".bin", string(full)))
		f.publics = append(f.publics, pub)
	}
	return f
}

// proveArgs are prove's arguments for f's circuit and witnesses.
func (f userFiles) proveArgs(system, keysDir, out string, ownKeys bool) []string {
	args := []string{"prove", "--pipeline", system, "--ccs", f.ccs, "--keys", keysDir, "--out", out, "--progress", "off"}
	if f.curve != ecc.BLS12_381 {
		args = append(args, "--curve", family.CurveName(f.curve))
	}
	if ownKeys {
		args = append(args, "--pk", f.pk, "--vk", f.vk)
	}
	for _, w := range f.witnesses {
		args = append(args, "--witness", w)
	}
	return args
}

// checkWithGnark reads each proof in out and checks it with gnark's own
// verifier against the test's verifying key and a public witness the test
// computes from its own assignment.
func (f userFiles) checkWithGnark(t *testing.T, system, out string) {
	t.Helper()
	for i, pub := range f.publics {
		raw, err := os.ReadFile(filepath.Join(out, proofFile(i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := usercircuit.Verify(f.curve, system, raw, f.vkey, pub); err != nil {
			t.Errorf("%s proof %d: gnark's verifier: %v", system, i, err)
		}
	}
}

// A user's own circuit, defined in this test, compiled and serialized
// with gnark, with keys from gnark's own setup and witnesses of its own:
// prove --ccs --pk --vk --witness proves it with those keys (one
// partition a witness), gnark's verifier accepts every proof against the
// test's verifying key and public inputs, and verify --vk accepts the
// directory, saying which key it used. Without --pk/--vk the key cache's
// keys are made on first use, and used again after.
func TestProveAUsersOwnCircuitWithItsOwnKeys(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			f := newUserFiles(t, system)
			keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			rc, stdout, stderr := prooflane(t, f.proveArgs(system, keysDir, out, true)...)
			if rc != 0 || !strings.Contains(stdout, "3 proofs of circuit-") {
				t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
			}
			if files, _ := os.ReadDir(keysDir); len(files) != 0 {
				t.Errorf("the user's own keys went into the key cache: %v", files)
			}
			f.checkWithGnark(t, system, out)
			rc, stdout, stderr = prooflane(t, "verify", "--vk", f.vk, out)
			if rc != 0 || !strings.Contains(stdout, "with "+f.vk) || !strings.Contains(stdout, "all 3 proofs verify") {
				t.Errorf("verify --vk: exit %d\n%s%s", rc, stdout, stderr)
			}
			cached := filepath.Join(t.TempDir(), "cached")
			if rc, stdout, stderr := prooflane(t, f.proveArgs(system, keysDir, cached, false)...); rc != 0 {
				t.Fatalf("prove with the cache's keys: exit %d\n%s%s", rc, stdout, stderr)
			}
			if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, cached); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
				t.Errorf("verify against the cache: exit %d\n%s%s", rc, stdout, stderr)
			}
			again := filepath.Join(t.TempDir(), "again")
			rc, _, stderr = prooflane(t, f.proveArgs(system, keysDir, again, false)...)
			if rc != 0 || strings.Contains(stderr, "setup") {
				t.Errorf("a second prove made keys again: exit %d\n%s", rc, stderr)
			}
		})
	}
}

// Another circuit's keys are refused before any proving, naming the
// mismatch, with nothing written; a truncated witness is refused naming
// its file and index; a witness without --ccs is a usage mistake.
func TestProveRefusesAnotherCircuitsKeysAndABadWitness(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			f := newUserFiles(t, system)
			other := f
			other.pk, other.vk, _ = usercircuit.Setup(t, system, usercircuit.Compile(t, ecc.BLS12_381, system, &squares{}), t.TempDir())
			out := filepath.Join(t.TempDir(), "out")
			rc, stdout, stderr := prooflane(t, other.proveArgs(system, t.TempDir(), out, true)...)
			if rc != exitFailure || !strings.Contains(stderr, "--pk") || stdout != "" {
				t.Errorf("another circuit's keys: exit %d\n%s%s", rc, stdout, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out written for another circuit's keys: %v", err)
			}
			data, err := os.ReadFile(f.witnesses[1])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.witnesses[1], data[:len(data)-5], 0o644); err != nil {
				t.Fatal(err)
			}
			rc, _, stderr = prooflane(t, f.proveArgs(system, t.TempDir(), out, true)...)
			if rc != exitFailure || !strings.Contains(stderr, "witness 1 ("+f.witnesses[1]+")") || !strings.Contains(stderr, "truncated") {
				t.Errorf("a truncated witness: exit %d\n%s", rc, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out written for a bad witness: %v", err)
			}
			rc, _, stderr = prooflane(t, "prove", "--pipeline", system, "--witness", f.witnesses[0], "--out", out)
			if rc != exitUsage || !strings.Contains(stderr, "--ccs") {
				t.Errorf("--witness without --ccs: exit %d\n%s", rc, stderr)
			}
		})
	}
}
