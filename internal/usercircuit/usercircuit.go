// Package usercircuit is a user's own circuit for the tests that prove
// one through the CLI and the service: circuits defined here and nowhere
// in the product, compiled, set up and verified with gnark alone, so that
// what prooflane proves is checked against nothing of its own.
package usercircuit

import (
	"bytes"
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
)

// Cubic is Y = X³ + X·Z + 5 for a secret X and public Y and Z.
type Cubic struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
	Z frontend.Variable `gnark:",public"`
}

func (c *Cubic) Define(api frontend.API) error {
	x3 := api.Mul(c.X, c.X, c.X)
	api.AssertIsEqual(api.Add(x3, api.Mul(c.X, c.Z), 5), c.Y)
	return nil
}

// CubicAssignment is Cubic's assignment for x and z.
func CubicAssignment(x, z int64) *Cubic {
	return &Cubic{X: x, Y: x*x*x + x*z + 5, Z: z}
}

// Squares is A² + B² = C for public C: another circuit, for keys that are
// not Cubic's.
type Squares struct {
	A, B frontend.Variable
	C    frontend.Variable `gnark:",public"`
}

func (c *Squares) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(api.Mul(c.A, c.A), api.Mul(c.B, c.B)), c.C)
	return nil
}

// Compile compiles c on curve for system: an R1CS for "groth16", a
// SparseR1CS for "plonk".
func Compile(t testing.TB, curve ecc.ID, system string, c frontend.Circuit) constraint.ConstraintSystem {
	t.Helper()
	var builder frontend.NewBuilder = r1cs.NewBuilder
	if system == "plonk" {
		builder = scs.NewBuilder
	}
	ccs, err := frontend.Compile(curve.ScalarField(), builder, c)
	if err != nil {
		t.Fatal(err)
	}
	return ccs
}

// WriteTo writes what w writes into dir/name and returns its path.
func WriteTo(t testing.TB, dir, name string, w io.WriterTo) string {
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

// Setup makes keys of ccs with gnark's own setup (an unsafe SRS for
// PLONK), writes them into dir as pk.bin and vk.bin, and returns their
// paths and the verifying key as gnark holds it (a groth16.VerifyingKey or
// a plonk.VerifyingKey).
func Setup(t testing.TB, system string, ccs constraint.ConstraintSystem, dir string) (pk, vk string, vkey any) {
	t.Helper()
	if system == "groth16" {
		p, v, err := groth16.Setup(ccs)
		if err != nil {
			t.Fatal(err)
		}
		return WriteTo(t, dir, "pk.bin", p), WriteTo(t, dir, "vk.bin", v), v
	}
	srs, lagrange, err := unsafekzg.NewSRS(ccs)
	if err != nil {
		t.Fatal(err)
	}
	p, v, err := plonk.Setup(ccs, srs, lagrange)
	if err != nil {
		t.Fatal(err)
	}
	return WriteTo(t, dir, "pk.bin", p), WriteTo(t, dir, "vk.bin", v), v
}

// Witness is a's full witness on curve (gnark's MarshalBinary) and its
// public witness.
func Witness(t testing.TB, curve ecc.ID, a frontend.Circuit) ([]byte, witness.Witness) {
	t.Helper()
	w, err := frontend.NewWitness(a, curve.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := w.Public()
	if err != nil {
		t.Fatal(err)
	}
	return b, pub
}

// Verify decodes a proof of curve and checks it with gnark's
// groth16.Verify or plonk.Verify against vkey and pub.
func Verify(curve ecc.ID, system string, raw []byte, vkey any, pub witness.Witness) error {
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
