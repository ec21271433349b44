package prooflane_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark/backend/plonk"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
	stagesplonk "github.com/prooflane/prooflane/stages/plonk"
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
	if !pr.VerifyingKey().Ql.Equal(&first[0].VerifyingKey.Ql) || !pr.VerifyingKey().S[0].Equal(&first[0].VerifyingKey.S[0]) {
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

// Committed uses gnark's BSB22 commitments (api.Commit), which the PLONK
// stages do not make.
type Committed struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *Committed) Define(api frontend.API) error {
	committer, ok := api.(frontend.Committer)
	if !ok {
		return errors.New("the builder cannot commit")
	}
	r, err := committer.Commit(c.X)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(r, 0)
	api.AssertIsEqual(c.Y, api.Mul(c.X, c.X))
	return nil
}

// A circuit with commitments is refused before any setup, naming it; a
// pipeline of the other family is refused by either constructor, naming
// the one to use, and one that makes no proof by its file.
func TestNewPlonkProverRefusesCommitmentsAndOtherFamiliesPipelines(t *testing.T) {
	dir := t.TempDir()
	solveOnly := filepath.Join(dir, "solve-only.yaml")
	yaml := "pipeline: plonk-solve-only\nstages:\n  solve:\n    type: plonk.solve\n"
	if err := os.WriteFile(solveOnly, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, err := prooflane.NewPlonkProver(&Committed{}, prooflane.WithKeyCache(dir), prooflane.WithLog(&log))
	if !errors.Is(err, stagesplonk.ErrCommitments) || !strings.Contains(err.Error(), `circuit "*prooflane_test.Committed"`) {
		t.Errorf("a circuit with commitments: %v, want ErrCommitments naming the circuit", err)
	}
	if log.Len() != 0 {
		t.Errorf("a refused circuit ran the setup: %q", log.String())
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
