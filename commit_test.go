package prooflane_test

import (
	"context"
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	g16bls12381 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/hash/sha2"
	"github.com/consensys/gnark/std/lookup/logderivlookup"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/math/emulated/emparams"
	"github.com/consensys/gnark/std/math/uints"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/prooflane/prooflane"
	"github.com/prooflane/prooflane/stages/family"
)

type fp = emparams.Secp256k1Fp

// Gadgets range checks (std/rangecheck), looks a private table up
// (std/lookup/logderivlookup) and multiplies in secp256k1's base field
// (std/math/emulated): every one of them commits (api.Commit).
type Gadgets struct {
	V       [4]frontend.Variable
	Table   [8]frontend.Variable
	Queries [2]frontend.Variable
	Found   [2]frontend.Variable `gnark:",public"`
	X, Y    emulated.Element[fp]
	XY      emulated.Element[fp] `gnark:",public"`
}

func (c *Gadgets) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	for _, v := range c.V {
		rc.Check(v, 20)
	}
	t := logderivlookup.New(api)
	for _, e := range c.Table {
		t.Insert(e)
	}
	for i, r := range t.Lookup(c.Queries[:]...) {
		api.AssertIsEqual(r, c.Found[i])
	}
	f, err := emulated.NewField[fp](api)
	if err != nil {
		return err
	}
	f.AssertIsEqual(f.Mul(&c.X, &c.Y), &c.XY)
	return nil
}

func gadgets(seed int64) *Gadgets {
	a := &Gadgets{}
	for i := range a.V {
		a.V[i] = seed*1000 + int64(i)
	}
	for i := range a.Table {
		a.Table[i] = seed*seed + int64(i)*7
	}
	for i, q := range []int64{seed % 8, 3} {
		a.Queries[i], a.Found[i] = q, seed*seed+q*7
	}
	x, y := big.NewInt(seed+12345), new(big.Int).Lsh(big.NewInt(seed+3), 200)
	a.X, a.Y = emulated.ValueOf[fp](x), emulated.ValueOf[fp](y)
	a.XY = emulated.ValueOf[fp](new(big.Int).Mod(new(big.Int).Mul(x, y), fp{}.Modulus()))
	return a
}

// Prove proves circuits built on gadgets that commit, with no option:
// each proof carries its commitment, and gnark's verifier accepts it.
func TestProveProvesCircuitsThatCommit(t *testing.T) {
	proofs, err := prooflane.Prove(context.Background(), &Gadgets{}, []frontend.Circuit{gadgets(1), gadgets(2), gadgets(3)},
		prooflane.WithKeyCache(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range proofs {
		if len(p.Proof.(*g16bls12381.Proof).Commitments) != 1 {
			t.Errorf("proof %d: %d commitments, want 1", i, len(p.Proof.(*g16bls12381.Proof).Commitments))
		}
		if err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
	if err := groth16.Verify(proofs[0].Proof, proofs[0].VerifyingKey, proofs[1].Public); err == nil {
		t.Error("proof 0 verifies with assignment 1's public inputs")
	}
}

// Digest hashes its input with std/hash/sha2.
type Digest struct {
	In  [3]uints.U8
	Out [32]uints.U8 `gnark:",public"`
}

func (c *Digest) Define(api frontend.API) error {
	h, err := sha2.New(api)
	if err != nil {
		return err
	}
	h.Write(c.In[:])
	u, err := uints.New[uints.U32](api)
	if err != nil {
		return err
	}
	for i, b := range h.Sum() {
		u.ByteAssertEq(b, c.Out[i])
	}
	return nil
}

// Prove proves a std/hash/sha2 circuit (whose byte tables commit).
func TestProveProvesSHA2(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("std/hash/sha2's system (157k constraints) takes minutes to set up on 2 cores: run without -short and -race")
	}
	in := []byte("abc")
	d := sha256.Sum256(in)
	a := &Digest{}
	copy(a.In[:], uints.NewU8Array(in))
	copy(a.Out[:], uints.NewU8Array(d[:]))
	proofs, err := prooflane.Prove(context.Background(), &Digest{}, []frontend.Circuit{a}, prooflane.WithKeyCache(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(proofs[0].Proof, proofs[0].VerifyingKey, proofs[0].Public); err != nil {
		t.Fatal(err)
	}
}

// WithCommitmentHash(family.Keccak256) makes Groth16 proofs for gnark's
// Solidity verifier: gnark's verifier accepts each with its keccak256
// option and rejects it without. ProvePlonk, whose proofs take the
// default hash alone, refuses it, as both refuse a hash of no name.
func TestWithCommitmentHashKeccak256ProvesForGnarksSolidityVerifier(t *testing.T) {
	dir := t.TempDir()
	proofs, err := prooflane.Prove(context.Background(), &Gadgets{}, []frontend.Circuit{gadgets(1), gadgets(2)},
		prooflane.WithCurve(ecc.BN254), prooflane.WithKeyCache(dir), prooflane.WithCommitmentHash(family.Keccak256))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range proofs {
		if err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public, solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
			t.Errorf("proof %d: gnark's verifier with keccak256: %v", i, err)
		}
		if err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public); err == nil {
			t.Errorf("proof %d: gnark's verifier with its default hash accepts a keccak256 proof", i)
		}
	}
	if _, err := prooflane.NewPlonkProver(&Gadgets{}, prooflane.WithKeyCache(dir), prooflane.WithCommitmentHash(family.Keccak256)); err == nil ||
		err.Error() != `prooflane: commitment hash "keccak256": plonk proofs take rfc9380` {
		t.Errorf("ProvePlonk with keccak256: %v", err)
	}
	if _, err := prooflane.NewProver(&Gadgets{}, prooflane.WithKeyCache(dir), prooflane.WithCommitmentHash("sha256")); err == nil ||
		err.Error() != `prooflane: commitment hash "sha256": groth16 proofs take rfc9380, keccak256` {
		t.Errorf("NewProver with sha256: %v", err)
	}
}
