package service

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/internal/usercircuit"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

// userCubic is a user's own circuit, defined outside the product;
// otherCircuit is another, for keys that are not userCubic's.
type (
	userCubic    = usercircuit.Cubic
	otherCircuit = usercircuit.Squares
)

// userCircuit is a user's circuit for one proof system, as its files: the
// constraint system and the keys from gnark's own setup, with the
// verifying key as gnark holds it.
type userCircuit struct {
	system      string // "groth16" or "plonk"
	ccs, pk, vk string
	vkey        any // groth16.VerifyingKey or plonk.VerifyingKey
	curve       string
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
	ccs := usercircuit.Compile(t, curve, system, c)
	u := userCircuit{system: system, ccs: usercircuit.WriteTo(t, dir, "circuit.ccs", ccs)}
	if curve != ecc.BLS12_381 {
		u.curve = family.CurveName(curve)
	}
	u.pk, u.vk, u.vkey = usercircuit.Setup(t, system, ccs, dir)
	return u
}

// cubicWitness is userCubic's full witness for x and z (gnark's
// MarshalBinary) and its public witness.
func cubicWitness(t testing.TB, x, z int64) ([]byte, witness.Witness) {
	t.Helper()
	return usercircuit.Witness(t, ecc.BLS12_381, usercircuit.CubicAssignment(x, z))
}

// cubicWitnessOn is cubicWitness on curve.
func cubicWitnessOn(t testing.TB, curve ecc.ID, x, z int64) ([]byte, witness.Witness) {
	t.Helper()
	return usercircuit.Witness(t, curve, usercircuit.CubicAssignment(x, z))
}

// gnarkVerify decodes a BLS12-381 proof and checks it with gnark's
// groth16.Verify or plonk.Verify against vkey and pub.
func gnarkVerify(system string, raw []byte, vkey any, pub witness.Witness) error {
	return usercircuit.Verify(ecc.BLS12_381, system, raw, vkey, pub)
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
