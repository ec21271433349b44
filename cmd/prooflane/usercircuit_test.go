package main

import (
	"bytes"
	"github.com/prooflane/prooflane/stages/family"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/plonk"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
	"github.com/consensys/gnark/test/unsafekzg"
)

// userCubic is a user's own circuit, defined here and nowhere in the
// project: Y = X³ + X·Z + 5 for a secret X and public Y and Z.
type userCubic struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
	Z frontend.Variable `gnark:",public"`
}

func (c *userCubic) Define(api frontend.API) error {
	x3 := api.Mul(c.X, c.X, c.X)
	api.AssertIsEqual(api.Add(x3, api.Mul(c.X, c.Z), 5), c.Y)
	return nil
}

// assignment is userCubic's assignment for x and z.
func (userCubic) assignment(x, z int64) *userCubic {
	y := x*x*x + x*z + 5
	return &userCubic{X: x, Y: y, Z: z}
}

// squares is another user circuit, for keys that are not userCubic's.
type squares struct {
	A, B frontend.Variable
	C    frontend.Variable `gnark:",public"`
}

func (c *squares) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(api.Mul(c.A, c.A), api.Mul(c.B, c.B)), c.C)
	return nil
}

// userFiles are a user's files of one circuit for one proof system: the
// constraint system, keys and witnesses, all in gnark's encodings.
type userFiles struct {
	ccs, pk, vk string
	witnesses   []string
	vkey        any // groth16.VerifyingKey or plonk.VerifyingKey
	assigned    []*userCubic
	curve       ecc.ID
}

// writeTo writes what w writes into dir/name.
func writeTo(t *testing.T, dir, name string, w io.WriterTo) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// compileUser compiles c for system ("groth16": an R1CS; "plonk": a
// SparseR1CS) on BLS12-381.
func compileUser(t *testing.T, system string, c frontend.Circuit) constraint.ConstraintSystem {
	t.Helper()
	return compileUserOn(t, ecc.BLS12_381, system, c)
}

// compileUserOn is compileUser on curve.
func compileUserOn(t *testing.T, curve ecc.ID, system string, c frontend.Circuit) constraint.ConstraintSystem {
	t.Helper()
	var ccs constraint.ConstraintSystem
	var err error
	if system == "plonk" {
		ccs, err = frontend.Compile(curve.ScalarField(), scs.NewBuilder, c)
	} else {
		ccs, err = frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, c)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ccs
}

// userSetup makes keys of ccs with gnark's own setup (an unsafe SRS for
// PLONK) and writes them into dir.
func userSetup(t *testing.T, system string, ccs constraint.ConstraintSystem, dir string) (pk, vk string, vkey any) {
	t.Helper()
	if system == "groth16" {
		p, v, err := groth16.Setup(ccs)
		if err != nil {
			t.Fatal(err)
		}
		return writeTo(t, dir, "pk.bin", p), writeTo(t, dir, "vk.bin", v), v
	}
	srs, lagrange, err := unsafekzg.NewSRS(ccs)
	if err != nil {
		t.Fatal(err)
	}
	p, v, err := plonk.Setup(ccs, srs, lagrange)
	if err != nil {
		t.Fatal(err)
	}
	return writeTo(t, dir, "pk.bin", p), writeTo(t, dir, "vk.bin", v), v
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
	ccs := compileUserOn(t, curve, system, &userCubic{})
	f := userFiles{ccs: writeTo(t, dir, "circuit.ccs", ccs), curve: curve}
	f.pk, f.vk, f.vkey = userSetup(t, system, ccs, dir)
	for i := range int64(3) {
		a := userCubic{}.assignment(3+i, 7*i+1)
		w, err := frontend.NewWitness(a, curve.ScalarField())
		if err != nil {
			t.Fatal(err)
		}
		b, err := w.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		f.witnesses = append(f.witnesses, writeFile(t, dir, "w"+string(rune('0'+i))+".bin", string(b)))
		f.assigned = append(f.assigned, a)
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
	for i, a := range f.assigned {
		pub, err := frontend.NewWitness(a, f.curve.ScalarField(), frontend.PublicOnly())
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(out, proofFile(i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyWithGnark(f.curve, system, raw, f.vkey, pub); err != nil {
			t.Errorf("%s proof %d: gnark's verifier: %v", system, i, err)
		}
	}
}

// verifyWithGnark decodes a proof file and checks it with gnark's
// groth16.Verify or plonk.Verify.
func verifyWithGnark(curve ecc.ID, system string, raw []byte, vkey any, pub witness.Witness) error {
	if system == "groth16" {
		proof := groth16.NewProof(curve)
		if _, err := proof.ReadFrom(bytes.NewReader(raw)); err != nil {
			return err
		}
		return groth16.Verify(proof, vkey.(groth16.VerifyingKey), pub)
	}
	proof := plonk.NewProof(curve)
	if _, err := proof.ReadFrom(bytes.NewReader(raw)); err != nil {
		return err
	}
	return plonk.Verify(proof, vkey.(plonk.VerifyingKey), pub)
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
			other.pk, other.vk, _ = userSetup(t, system, compileUser(t, system, &squares{}), t.TempDir())
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
