package evmtest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	g16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/plonk"
	plonkbn254 "github.com/consensys/gnark/backend/plonk/bn254"
	gsolidity "github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
	"github.com/consensys/gnark/test/unsafekzg"

	"github.com/prooflane/prooflane/internal/keyfile"
)

// The fixtures: keys and proofs of a tiny circuit made with gnark's own
// backends, for the tests that check proofs on the chain.

// cube proves knowledge of x with x³ + x + 5 = y, y and a tag public; with
// commit, the circuit also commits to x and y (a Groth16 Pedersen
// commitment, a PLONK BSB22 commitment) and uses the commitment.
type cube struct {
	X      frontend.Variable
	Y, Tag frontend.Variable `gnark:",public"`
	commit bool
}

func (c *cube) Define(api frontend.API) error {
	x3 := api.Mul(c.X, c.X, c.X)
	api.AssertIsEqual(api.Add(x3, c.X, 5), c.Y)
	api.AssertIsDifferent(c.Tag, 0)
	if c.commit {
		cm, err := api.(frontend.Committer).Commit(c.X, c.Y)
		if err != nil {
			return err
		}
		api.AssertIsDifferent(api.Mul(cm, c.X), 0)
	}
	return nil
}

// Fixture is a BN254 verifying key file as prooflane writes it and a
// proof's files, with a tampered proof and other public inputs beside
// them; gnark's verifier accepted the proof and rejected the tampered
// one and the other inputs.
type Fixture struct {
	VK                    string // the verifying key file
	Proof, Public         []byte // as proof-N.bin and public-N.bin
	Tampered, WrongPublic []byte
}

// assignment is the witness x = 3: y = 35.
func assignment(commit bool) *cube { return &cube{X: 3, Y: 35, Tag: 7, commit: commit} }

func compile(t testing.TB, curve ecc.ID, builder frontend.NewBuilder, commit bool) constraint.ConstraintSystem {
	t.Helper()
	ccs, err := frontend.Compile(curve.ScalarField(), builder, &cube{commit: commit})
	if err != nil {
		t.Fatal(err)
	}
	return ccs
}

func witnesses(t testing.TB, curve ecc.ID, commit bool) (full, public, wrong witness.Witness) {
	t.Helper()
	full, err := frontend.NewWitness(assignment(commit), curve.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	if public, err = full.Public(); err != nil {
		t.Fatal(err)
	}
	bad := assignment(commit)
	bad.Tag = 8
	w, err := frontend.NewWitness(bad, curve.ScalarField(), frontend.PublicOnly())
	if err != nil {
		t.Fatal(err)
	}
	return full, public, w
}

// encode is a value's gnark encoding (WriteTo).
func encode(t testing.TB, v io.WriterTo) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func marshal(t testing.TB, w witness.Witness) []byte {
	t.Helper()
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WriteVK writes a verifying key into a file of t's as prooflane's
// Groth16 key cache does (gnark's WriteTo and the checksum trailer) when
// trailer is set, else as prove writes vk.bin (gnark's WriteTo).
func WriteVK(t testing.TB, vk io.WriterTo, trailer bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vk.bin")
	var err error
	if trailer {
		err = keyfile.Write(path, vk.WriteTo)
	} else {
		err = os.WriteFile(path, encode(t, vk), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Groth16 sets up and proves the cube circuit with gnark's Groth16
// on BN254; with commit, the proofs hash the commitment with keccak256
// (gnark's Solidity target), as its contract does.
func Groth16(t testing.TB, commit bool) Fixture {
	t.Helper()
	ccs := compile(t, ecc.BN254, r1cs.NewBuilder, commit)
	pk, vk, err := groth16.Setup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	full, public, wrong := witnesses(t, ecc.BN254, commit)
	proof, err := groth16.Prove(ccs, pk, full, gsolidity.WithProverTargetSolidityVerifier(backend.GROTH16))
	if err != nil {
		t.Fatal(err)
	}
	verify := func(p groth16.Proof, w witness.Witness) error {
		return groth16.Verify(p, vk, w, gsolidity.WithVerifierTargetSolidityVerifier(backend.GROTH16))
	}
	if err := verify(proof, public); err != nil {
		t.Fatalf("gnark rejects the proof: %v", err)
	}
	// C moved by the generator: points on the curve, a wrong proof.
	tampered := *proof.(*g16bn254.Proof)
	_, _, g1, _ := bn254.Generators()
	tampered.Krs.Add(&tampered.Krs, &g1)
	if verify(&tampered, public) == nil {
		t.Fatal("gnark accepts the tampered proof")
	}
	if verify(proof, wrong) == nil {
		t.Fatal("gnark accepts the proof for other public inputs")
	}
	return Fixture{
		VK:    WriteVK(t, vk, true),
		Proof: encode(t, proof), Public: marshal(t, public),
		Tampered: encode(t, &tampered), WrongPublic: marshal(t, wrong),
	}
}

// Plonk sets up and proves the cube circuit with gnark's PLONK on
// BN254 (an unsafe test SRS), with gnark's default options.
func Plonk(t testing.TB, commit bool) Fixture {
	t.Helper()
	ccs := compile(t, ecc.BN254, scs.NewBuilder, commit)
	srs, lagrange, err := unsafekzg.NewSRS(ccs)
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, err := plonk.Setup(ccs, srs, lagrange)
	if err != nil {
		t.Fatal(err)
	}
	full, public, wrong := witnesses(t, ecc.BN254, commit)
	proof, err := plonk.Prove(ccs, pk, full)
	if err != nil {
		t.Fatal(err)
	}
	if err := plonk.Verify(proof, vk, public); err != nil {
		t.Fatalf("gnark rejects the proof: %v", err)
	}
	// l(ζ) claimed one more: a wrong opening.
	tampered := *proof.(*plonkbn254.Proof)
	tampered.BatchedProof.ClaimedValues = append([]fr.Element(nil), tampered.BatchedProof.ClaimedValues...)
	var one fr.Element
	one.SetOne()
	tampered.BatchedProof.ClaimedValues[1].Add(&tampered.BatchedProof.ClaimedValues[1], &one)
	if plonk.Verify(&tampered, vk, public) == nil {
		t.Fatal("gnark accepts the tampered proof")
	}
	if plonk.Verify(proof, vk, wrong) == nil {
		t.Fatal("gnark accepts the proof for other public inputs")
	}
	return Fixture{
		VK:    WriteVK(t, vk, false),
		Proof: encode(t, proof), Public: marshal(t, public),
		Tampered: encode(t, &tampered), WrongPublic: marshal(t, wrong),
	}
}

// BLS12381Keys returns a Groth16 and a PLONK verifying key file of the cube
// circuit on BLS12-381, as prooflane writes them today.
func BLS12381Keys(t testing.TB) (groth16VK, plonkVK string) {
	t.Helper()
	_, vk, err := groth16.Setup(compile(t, ecc.BLS12_381, r1cs.NewBuilder, false))
	if err != nil {
		t.Fatal(err)
	}
	groth16VK = WriteVK(t, vk, true)
	ccs := compile(t, ecc.BLS12_381, scs.NewBuilder, false)
	srs, lagrange, err := unsafekzg.NewSRS(ccs)
	if err != nil {
		t.Fatal(err)
	}
	_, pvk, err := plonk.Setup(ccs, srs, lagrange)
	if err != nil {
		t.Fatal(err)
	}
	return groth16VK, WriteVK(t, pvk, false)
}
