package prooflane_test

import (
	"bytes"
	"context"
	g16bls12381 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"strings"
	"testing"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
)

// The keys are set up once per circuit and found in the cache after; a
// failing assignment is named by its index; every proof verifies.
func TestProveCachesKeysAndNamesTheFailingAssignment(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	ctx := context.Background()
	first, err := prooflane.Prove(ctx, &Cubic{}, []frontend.Circuit{&Cubic{X: 2, Y: 15}},
		prooflane.WithKeyCache(dir), prooflane.WithLog(&log), prooflane.SilenceGnark())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "running setup (once)") {
		t.Errorf("first call did not say it ran the setup: %q", log.String())
	}
	log.Reset()
	pr, err := prooflane.NewProver(&Cubic{}, prooflane.WithKeyCache(dir), prooflane.WithLog(&log),
		prooflane.WithPipeline("groth16-dual-worker"))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if log.Len() != 0 {
		t.Errorf("second prover ran the setup again: %q", log.String())
	}
	if !pr.VerifyingKey().(*g16bls12381.VerifyingKey).G1.Alpha.Equal(&first[0].VerifyingKey.(*g16bls12381.VerifyingKey).G1.Alpha) {
		t.Error("second prover has other keys than the first")
	}
	proofs, err := pr.Prove(ctx, []frontend.Circuit{&Cubic{X: 1, Y: 7}, &Cubic{X: 6, Y: 227}})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range proofs {
		if err := groth16.Verify(p.Proof, p.VerifyingKey, p.Public); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
	// A proof does not verify against another assignment's public input.
	if err := groth16.Verify(proofs[0].Proof, proofs[0].VerifyingKey, proofs[1].Public); err == nil {
		t.Error("proof 0 verifies with assignment 1's public input")
	}

	checkBadAssignments(t, func(as []frontend.Circuit) error {
		_, err := pr.Prove(ctx, as)
		return err
	})
	if _, err := prooflane.Prove(ctx, &Cubic{}, []frontend.Circuit{&Cubic{X: 1, Y: 7}},
		prooflane.WithKeyCache(dir), prooflane.WithPipeline("sim-groth16")); err == nil || !strings.Contains(err.Error(), `pipeline "sim-groth16" makes no proof`) {
		t.Errorf("a sim pipeline: %v", err)
	}
	if _, err := prooflane.NewProver(&Cubic{}, prooflane.WithPipeline("nope")); err == nil || !strings.Contains(err.Error(), `pipeline "nope": no such file`) {
		t.Errorf("a missing pipeline: %v", err)
	}
}

// checkBadAssignments checks that prove fails an unsatisfied assignment,
// a nil one and an empty list, naming the assignment.
func checkBadAssignments(t *testing.T, prove func([]frontend.Circuit) error) {
	t.Helper()
	err := prove([]frontend.Circuit{&Cubic{X: 1, Y: 7}, &Cubic{X: 1, Y: 8}})
	if err == nil || !strings.Contains(err.Error(), "prooflane: assignment 1: ") {
		t.Errorf("unsatisfied assignment 1: %v", err)
	}
	for _, c := range []struct {
		as   []frontend.Circuit
		want string
	}{
		{nil, "prooflane: no assignments to prove"},
		{[]frontend.Circuit{&Cubic{X: 1, Y: 7}, nil}, "prooflane: assignment 1 is nil"},
	} {
		if err := prove(c.as); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// Provers of one circuit started at once on one key cache run one setup
// (the cache's lock) and all get the same keys: without the lock each ran
// its own and the cache could end up with the files of two setups.
func TestConcurrentProversOfOneCircuitRunOneSetup(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	logs := make([]bytes.Buffer, n)
	provers := make([]*prooflane.Prover, n)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			pr, err := prooflane.NewProver(&Cubic{}, prooflane.WithKeyCache(dir), prooflane.WithLog(&logs[i]))
			provers[i] = pr
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	setups := 0
	for i := range n {
		defer provers[i].Close()
		setups += strings.Count(logs[i].String(), "running setup (once)")
		if !provers[i].VerifyingKey().(*g16bls12381.VerifyingKey).G1.Alpha.Equal(&provers[0].VerifyingKey().(*g16bls12381.VerifyingKey).G1.Alpha) {
			t.Errorf("prover %d has other keys than prover 0", i)
		}
	}
	if setups != 1 {
		t.Errorf("%d setups ran, want 1", setups)
	}
	proofs, err := provers[n-1].Prove(context.Background(), []frontend.Circuit{&Cubic{X: 2, Y: 15}})
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(proofs[0].Proof, provers[0].VerifyingKey(), proofs[0].Public); err != nil {
		t.Error(err)
	}
}
