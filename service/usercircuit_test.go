package service

import (
	"bytes"
	"context"
	"fmt"
	"github.com/prooflane/prooflane/stages/family"
	"io"
	"os"
	"path/filepath"
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

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
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

// otherCircuit is another user circuit, for keys that are not userCubic's.
type otherCircuit struct {
	A, B frontend.Variable
	C    frontend.Variable `gnark:",public"`
}

func (c *otherCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(api.Mul(c.A, c.A), api.Mul(c.B, c.B)), c.C)
	return nil
}

// userCircuit is a user's circuit for one proof system, as its files: the
// constraint system and the keys from gnark's own setup, with the
// verifying key as gnark holds it.
type userCircuit struct {
	system      string // "groth16" or "plonk"
	ccs, pk, vk string
	vkey        any // groth16.VerifyingKey or plonk.VerifyingKey
	curve       string
}

// compileFor compiles c for system: an R1CS for groth16, a SparseR1CS for
// plonk, on BLS12-381.
func compileFor(t testing.TB, system string, c frontend.Circuit) constraint.ConstraintSystem {
	t.Helper()
	return compileOn(t, ecc.BLS12_381, system, c)
}

// compileOn is compileFor on curve.
func compileOn(t testing.TB, curve ecc.ID, system string, c frontend.Circuit) constraint.ConstraintSystem {
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

// writeTo writes what w writes into dir/name.
func writeTo(t testing.TB, dir, name string, w io.WriterTo) string {
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

// newUserCircuit compiles c for system, makes its keys with gnark's setup
// (an unsafe SRS for PLONK) and writes the three files into a fresh
// directory.
func newUserCircuit(t testing.TB, system string, c frontend.Circuit) userCircuit {
	t.Helper()
	return newUserCircuitOn(t, ecc.BLS12_381, system, c)
}

// newUserCircuitOn is newUserCircuit on curve.
func newUserCircuitOn(t testing.TB, curve ecc.ID, system string, c frontend.Circuit) userCircuit {
	t.Helper()
	dir := t.TempDir()
	ccs := compileOn(t, curve, system, c)
	u := userCircuit{system: system, ccs: writeTo(t, dir, "circuit.ccs", ccs)}
	if curve != ecc.BLS12_381 {
		u.curve = family.CurveName(curve)
	}
	if system == "groth16" {
		pk, vk, err := groth16.Setup(ccs)
		if err != nil {
			t.Fatal(err)
		}
		u.pk, u.vk, u.vkey = writeTo(t, dir, "pk.bin", pk), writeTo(t, dir, "vk.bin", vk), vk
		return u
	}
	srs, lagrange, err := unsafekzg.NewSRS(ccs)
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, err := plonk.Setup(ccs, srs, lagrange)
	if err != nil {
		t.Fatal(err)
	}
	u.pk, u.vk, u.vkey = writeTo(t, dir, "pk.bin", pk), writeTo(t, dir, "vk.bin", vk), vk
	return u
}

// cubicWitness is userCubic's full witness for x and z (gnark's
// MarshalBinary) and its public witness.
func cubicWitness(t testing.TB, x, z int64) ([]byte, witness.Witness) {
	t.Helper()
	return cubicWitnessOn(t, ecc.BLS12_381, x, z)
}

// cubicWitnessOn is cubicWitness on curve.
func cubicWitnessOn(t testing.TB, curve ecc.ID, x, z int64) ([]byte, witness.Witness) {
	t.Helper()
	a := &userCubic{X: x, Y: x*x*x + x*z + 5, Z: z}
	w, err := frontend.NewWitness(a, curve.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := frontend.NewWitness(a, curve.ScalarField(), frontend.PublicOnly())
	if err != nil {
		t.Fatal(err)
	}
	return b, pub
}

// gnarkVerify decodes a proof and checks it with gnark's groth16.Verify or
// plonk.Verify against vkey and pub.
func gnarkVerify(system string, raw []byte, vkey any, pub witness.Witness) error {
	return gnarkVerifyOn(ecc.BLS12_381, system, raw, vkey, pub)
}

// gnarkVerifyOn is gnarkVerify of curve's proof.
func gnarkVerifyOn(curve ecc.ID, system string, raw []byte, vkey any, pub witness.Witness) error {
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

// checkPublic checks that a proof's public witness is pub's encoding.
func checkPublic(p *pb.Proof, pub witness.Witness) error {
	want, err := pub.MarshalBinary()
	if err != nil {
		return err
	}
	if !bytes.Equal(want, p.PublicWitness) {
		return fmt.Errorf("partition %d: public witness is not the job's", p.Partition)
	}
	return nil
}

// add adds u's circuit to the harness's service, with its own keys or
// not.
func (h *harness) add(u userCircuit, ownKeys bool) (*pb.AddCircuitResponse, error) {
	f := CircuitFiles{Pipeline: u.system, CCS: u.ccs, Curve: u.curve}
	if ownKeys {
		f.PK, f.VK = u.pk, u.vk
	}
	return AddCircuit(context.Background(), h.client, f)
}
