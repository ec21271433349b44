package groth16

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/prooflane/prooflane/workloads"
)

// compiled is circuit at size, compiled for R1CS.
func compiled(t testing.TB, circuit string, size int) (workloads.Instance, *cs.R1CS) {
	t.Helper()
	inst, err := workloads.New(ecc.BLS12_381, circuit, size)
	if err != nil {
		t.Fatal(err)
	}
	c, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, inst.Circuit())
	if err != nil {
		t.Fatal(err)
	}
	return inst, c.(*cs.R1CS)
}

// witnessVector is the public and secret values of inst's assignment for
// seed, as the solvers take them.
func witnessVector(t testing.TB, a frontend.Circuit) fr.Vector {
	t.Helper()
	w, err := workloads.Witness(a)
	if err != nil {
		t.Fatal(err)
	}
	return w.Vector().(fr.Vector)
}

// The small solver's wires and A, B, C are gnark's solver's, element for
// element, for sha256 across partial and whole hashes and several
// witnesses.
func TestTheSmallSolverFindsGnarksSolution(t *testing.T) {
	for _, size := range []int{1 << 9, 1 << 12, 1 << 15} {
		inst, sys := compiled(t, "sha256", size)
		var small smallSystem
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("sha256_%d/seed_%d", size, seed), func(t *testing.T) {
				a := inst.Assignment(workloads.PartitionSeed(7, int(seed)))
				got, err := solveSmall(sys, &small, nil, witnessVector(t, a))
				if err != nil {
					t.Fatalf("small solver: %v", err)
				}
				sameSolution(t, sys, a, got)
			})
		}
	}
}

// Dense circuits, unsatisfied witnesses and values past 2^62 are left to
// gnark's solver.
func TestTheSmallSolverLeavesWhatItCannotSolveExactly(t *testing.T) {
	for _, circuit := range []string{"chain", "mimc"} {
		inst, sys := compiled(t, circuit, 1<<9)
		var small smallSystem
		if _, err := solveSmall(sys, &small, nil, witnessVector(t, inst.Assignment(3))); !errors.Is(err, errNotSmall) {
			t.Errorf("%s: %v, want errNotSmall", circuit, err)
		}
	}
	inst, sys := compiled(t, "sha256", 1<<10)
	var small smallSystem
	if _, err := solveSmall(sys, &small, nil, witnessVector(t, inst.Unsatisfied(3))); !errors.Is(err, errNotSmall) {
		t.Errorf("sha256, an unsatisfied witness: %v, want errNotSmall", err)
	}
	// Y = 3^256 is not small: the solve stops at its inputs.
	c, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &squares{n: 8})
	if err != nil {
		t.Fatal(err)
	}
	var sq smallSystem
	var y fr.Element
	y.SetUint64(3)
	for range 8 {
		y.Square(&y)
	}
	if _, err := solveSmall(c.(*cs.R1CS), &sq, nil, witnessVector(t, &squares{X: 3, Y: y, n: 8})); !errors.Is(err, errNotSmall) {
		t.Errorf("3^256: %v, want errNotSmall", err)
	}
	// x <- x*x from 3, Y left out: 3^64 is past 2^62 at the sixth step,
	// and the job's next partitions go to gnark's solver at once.
	c, err = frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &squares{n: 8, unchecked: true}, frontend.IgnoreUnconstrainedInputs())
	if err != nil {
		t.Fatal(err)
	}
	var over smallSystem
	if _, err := solveSmall(c.(*cs.R1CS), &over, nil, witnessVector(t, &squares{X: 3, Y: 0, n: 8})); !errors.Is(err, errNotSmall) {
		t.Errorf("3^256 inside: %v, want errNotSmall", err)
	}
	if !over.gaveUp.Load() {
		t.Error("stopped past its inputs, the small solver does not give the job's next partitions to gnark's solver")
	}
	// Small values, but a log to print: gnark's solver prints it.
	c, err = frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &squares{n: 2, log: true})
	if err != nil {
		t.Fatal(err)
	}
	var logged smallSystem
	if _, err := solveSmall(c.(*cs.R1CS), &logged, nil, witnessVector(t, &squares{X: 3, Y: 81, n: 2})); !errors.Is(err, errNotSmall) {
		t.Errorf("a circuit with a log: %v, want errNotSmall", err)
	}
	// The same without the log is small.
	c, err = frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &squares{n: 2})
	if err != nil {
		t.Fatal(err)
	}
	var plain smallSystem
	if _, err := solveSmall(c.(*cs.R1CS), &plain, nil, witnessVector(t, &squares{X: 3, Y: 81, n: 2})); err != nil {
		t.Errorf("3^4: %v", err)
	}
}

// squares proves Y = X^(2^n).
type squares struct {
	X   frontend.Variable
	Y   frontend.Variable `gnark:",public"`
	n   int
	log bool // api.Println the result
	// unchecked leaves Y unconstrained.
	unchecked bool
}

func (c *squares) Define(api frontend.API) error {
	x := c.X
	for range c.n {
		x = api.Mul(x, x)
	}
	if c.log {
		api.Println("x^(2^n) =", x)
	}
	if c.unchecked {
		return nil
	}
	api.AssertIsEqual(x, c.Y)
	return nil
}

// The solvers side by side at 2^20, each circuit's own (sha256: the small
// solver; chain and mimc: the field solver) against gnark's on one
// witness, with the heap warm (the arrays of the last solve reused) and
// cold (the heap given back to the OS before each solve, so that every
// page of the new arrays faults in, as for a partition of a job that has
// just started): on the 2-core host,
// `go test -run '^$' -bench BenchmarkSolve -benchtime 10x -count 3 ./stages/groth16/bls12381/`.
func BenchmarkSolve(b *testing.B) {
	for _, circuit := range []string{"sha256", "chain", "mimc"} {
		inst, sys := compiled(b, circuit, 1<<20)
		w, err := workloads.Witness(inst.Assignment(5))
		if err != nil {
			b.Fatal(err)
		}
		v := w.Vector().(fr.Vector)
		var small smallSystem
		var field fieldSystem
		ours := struct {
			name  string
			solve func() error
		}{"field", func() error { _, err := solveField(sys, &field, nil, v); return err }}
		if circuit == "sha256" {
			ours.name, ours.solve = "small", func() error { _, err := solveSmall(sys, &small, nil, v); return err }
		}
		solvers := []struct {
			name  string
			solve func() error
		}{ours, {"gnark", func() error { _, err := sys.Solve(w); return err }}}
		for _, heap := range []string{"warm", "cold"} {
			for _, s := range solvers {
				runtime.GC() // the compile's garbage, or the last run's
				b.Run(circuit+"/"+s.name+"/"+heap, func(b *testing.B) {
					for b.Loop() {
						if heap == "cold" {
							b.StopTimer()
							debug.FreeOSMemory()
							b.StartTimer()
						}
						if err := s.solve(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
