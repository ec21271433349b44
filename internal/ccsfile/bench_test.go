package ccsfile

import (
	"bytes"
	"github.com/consensys/gnark-crypto/ecc"
	"sync"
	"testing"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/prooflane/prooflane/workloads"
)

// rangeChecked range-checks its values to 32 bits (std/rangecheck: a
// log-derivative lookup under a commitment): a committing circuit.
type rangeChecked struct{ X []frontend.Variable }

func (c *rangeChecked) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	for _, x := range c.X {
		rc.Check(x, 32)
	}
	return nil
}

// benchSystem is a system the benchmarks read: its file and kind.
type benchSystem struct {
	name string
	kind Kind
	file []byte
}

var (
	benchOnce    sync.Once
	benchSystems []benchSystem
	benchErr     error
)

// largeSystems compiles the benchmarks' systems of about 2^20
// constraints, once: the chain circuit (x <- x*x + i) and rangeChecked
// with both builders.
func largeSystems(b *testing.B) []benchSystem {
	benchOnce.Do(func() {
		const n = 1 << 20
		// A step of the chain is a constraint of an R1CS, two of a
		// SparseR1CS; a value range-checked about 3.3 and 15.
		chain, err := workloads.New(ecc.BLS12_381, "chain", n)
		if err != nil {
			benchErr = err
			return
		}
		half, err := workloads.New(ecc.BLS12_381, "chain", n/2)
		if err != nil {
			benchErr = err
			return
		}
		for _, s := range []struct {
			name    string
			kind    Kind
			circuit frontend.Circuit
		}{
			{"chain/R1CS", R1CS, chain.Circuit()},
			{"chain/SparseR1CS", SparseR1CS, half.Circuit()},
			{"rangecheck/R1CS", R1CS, &rangeChecked{X: make([]frontend.Variable, n*3/10)}},
			{"rangecheck/SparseR1CS", SparseR1CS, &rangeChecked{X: make([]frontend.Variable, n/15)}},
		} {
			sys, err := compile(s.circuit, s.kind)
			if err != nil {
				benchErr = err
				return
			}
			var buf bytes.Buffer
			if _, err := sys.WriteTo(&buf); err != nil {
				benchErr = err
				return
			}
			benchSystems = append(benchSystems, benchSystem{s.name, s.kind, buf.Bytes()})
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSystems
}

// BenchmarkRead measures, on systems of about 2^20 constraints, gnark's
// decode alone against the checks Read adds: CheckLayout before it and
// CheckSolvable after.
func BenchmarkRead(b *testing.B) {
	for _, s := range largeSystems(b) {
		sys, err := decode(s.file, bls12_381, s.kind)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %d constraints, %d instructions, %d wires, %.1f MiB", s.name, sys.GetNbConstraints(), sys.GetNbInstructions(),
			sys.GetNbPublicVariables()+sys.GetNbSecretVariables()+sys.GetNbInternalVariables(), float64(len(s.file))/(1<<20))
		b.Run(s.name+"/decode", func(b *testing.B) {
			for b.Loop() {
				if _, err := decode(s.file, bls12_381, s.kind); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/layout", func(b *testing.B) {
			for b.Loop() {
				if err := CheckLayout(bytes.NewReader(s.file), int64(len(s.file))); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/solvable", func(b *testing.B) {
			for b.Loop() {
				if err := CheckSolvable(sys, s.kind); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
