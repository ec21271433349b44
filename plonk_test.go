package prooflane_test

import (
	"bytes"
	"context"
	plonkbls12381 "github.com/consensys/gnark/backend/plonk/bls12-381"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark/backend/plonk"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/lookup/logderivlookup"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/math/emulated/emparams"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/prooflane/prooflane"
)

// The PLONK key is set up once per circuit and found in the cache after,
// by another PLONK layout too; a failing assignment is named by its index;
// every proof verifies with gnark's plonk.Verify, and not with another
// assignment's public input.
func TestProvePlonkCachesTheKeyAndNamesTheFailingAssignment(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	ctx := context.Background()
	first, err := prooflane.ProvePlonk(ctx, &Cubic{}, []frontend.Circuit{&Cubic{X: 2, Y: 15}},
		prooflane.WithKeyCache(dir), prooflane.WithLog(&log), prooflane.SilenceGnark())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "plonk setup: circuit circuit-") {
		t.Errorf("first call did not say it ran the setup: %q", log.String())
	}
	if err := plonk.Verify(first[0].Proof, first[0].VerifyingKey, first[0].Public); err != nil {
		t.Errorf("first proof: %v", err)
	}
	log.Reset()
	pr, err := prooflane.NewPlonkProver(&Cubic{}, prooflane.WithKeyCache(dir), prooflane.WithLog(&log),
		prooflane.WithPipeline("plonk-single-lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if log.Len() != 0 {
		t.Errorf("second prover ran the setup again: %q", log.String())
	}
	if vk, vk0 := pr.VerifyingKey().(*plonkbls12381.VerifyingKey), first[0].VerifyingKey.(*plonkbls12381.VerifyingKey); !vk.Ql.Equal(&vk0.Ql) || !vk.S[0].Equal(&vk0.S[0]) {
		t.Error("second prover has another key than the first")
	}
	proofs, err := pr.Prove(ctx, []frontend.Circuit{&Cubic{X: 1, Y: 7}, &Cubic{X: 6, Y: 227}, &Cubic{X: 3, Y: 35}})
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs) != 3 {
		t.Fatalf("%d proofs of 3 assignments", len(proofs))
	}
	for i, p := range proofs {
		if err := plonk.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
	if err := plonk.Verify(proofs[0].Proof, proofs[0].VerifyingKey, proofs[1].Public); err == nil {
		t.Error("proof 0 verifies with assignment 1's public input")
	}

	checkBadAssignments(t, func(as []frontend.Circuit) error {
		_, err := pr.Prove(ctx, as)
		return err
	})
}

// PlonkGadgets commits through three of gnark's standard gadgets at once
// (std/multicommit makes one BSB22 commitment of them all): a range check
// (std/rangecheck), a table lookup (std/lookup/logderivlookup) and a
// product in BN254's base field (std/math/emulated, whose limbs are range
// checked).
type PlonkGadgets struct {
	Small frontend.Variable // below 2^16
	Index frontend.Variable // below 4
	A, B  emulated.Element[emparams.BN254Fp]
	Out   frontend.Variable                  `gnark:",public"` // table[Index] + Small
	AB    emulated.Element[emparams.BN254Fp] `gnark:",public"`
}

func (c *PlonkGadgets) Define(api frontend.API) error {
	rangecheck.New(api).Check(c.Small, 16)
	t := logderivlookup.New(api)
	for _, v := range []int{7, 11, 13, 17} {
		t.Insert(v)
	}
	api.AssertIsEqual(api.Add(t.Lookup(c.Index)[0], c.Small), c.Out)
	f, err := emulated.NewField[emparams.BN254Fp](api)
	if err != nil {
		return err
	}
	f.AssertIsEqual(f.Mul(&c.A, &c.B), &c.AB)
	return nil
}

func gadgetsAssignment(small, index int, a, b int64) *PlonkGadgets {
	p := emparams.BN254Fp{}.Modulus()
	x, y := new(big.Int).Sub(p, big.NewInt(a)), big.NewInt(b) // x = -a
	xy := new(big.Int).Mul(x, y)
	return &PlonkGadgets{Small: small, Index: index, Out: []int{7, 11, 13, 17}[index] + small,
		A: emulated.ValueOf[emparams.BN254Fp](x), B: emulated.ValueOf[emparams.BN254Fp](y),
		AB: emulated.ValueOf[emparams.BN254Fp](xy.Mod(xy, p))}
}

// A circuit whose gadgets commit proves with ProvePlonk and no option:
// every proof carries its commitment and verifies with gnark's
// plonk.Verify, and a value the range check refuses fails its assignment.
func TestProvePlonkProvesCircuitsWhoseGadgetsCommit(t *testing.T) {
	ctx := context.Background()
	assignments := []frontend.Circuit{gadgetsAssignment(5, 0, 3, 4), gadgetsAssignment(65535, 3, 1<<40, 1<<50)}
	proofs, err := prooflane.ProvePlonk(ctx, &PlonkGadgets{}, assignments, prooflane.WithKeyCache(t.TempDir()), prooflane.SilenceGnark())
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range proofs {
		if len(p.Proof.(*plonkbls12381.Proof).Bsb22Commitments) != 1 {
			t.Errorf("proof %d: %d commitments, want 1", i, len(p.Proof.(*plonkbls12381.Proof).Bsb22Commitments))
		}
		if err := plonk.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
	if err := plonk.Verify(proofs[0].Proof, proofs[0].VerifyingKey, proofs[1].Public); err == nil {
		t.Error("proof 0 verifies with assignment 1's public input")
	}
	_, err = prooflane.ProvePlonk(ctx, &PlonkGadgets{}, []frontend.Circuit{gadgetsAssignment(1<<16, 0, 3, 4)}, prooflane.WithKeyCache(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "assignment 0") {
		t.Errorf("a value above the range check's 16 bits: %v, want assignment 0 refused", err)
	}
}

// A pipeline of the other family is refused by either constructor, naming
// the one to use, and one that makes no proof by its file.
func TestNewPlonkProverRefusesOtherFamiliesPipelines(t *testing.T) {
	dir := t.TempDir()
	solveOnly := filepath.Join(dir, "solve-only.yaml")
	yaml := "pipeline: plonk-solve-only\nstages:\n  solve:\n    type: plonk.solve\n"
	if err := os.WriteFile(solveOnly, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		new  func() error
		want string
	}{
		{func() error {
			_, err := prooflane.NewPlonkProver(&Cubic{}, prooflane.WithKeyCache(dir), prooflane.WithPipeline("groth16"))
			return err
		}, `pipeline "groth16" makes groth16 proofs, NewPlonkProver makes plonk proofs (NewProver makes the other)`},
		{func() error {
			_, err := prooflane.NewProver(&Cubic{}, prooflane.WithKeyCache(dir), prooflane.WithPipeline("plonk"))
			return err
		}, `pipeline "plonk" makes plonk proofs, NewProver makes groth16 proofs (NewPlonkProver makes the other)`},
		{func() error {
			_, err := prooflane.NewPlonkProver(&Cubic{}, prooflane.WithKeyCache(dir), prooflane.WithPipeline(solveOnly))
			return err
		}, `pipeline "plonk-solve-only" makes no plonk proof: none of its final stages outputs plonk.proof`},
		{func() error {
			_, err := prooflane.NewPlonkProver(nil)
			return err
		}, "prooflane: no circuit"},
	} {
		if err := c.new(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
