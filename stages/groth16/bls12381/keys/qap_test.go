package keys

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
)

// onePassColumns is columns as gnark's R1C iterator gives the
// constraints, one after the other: the reference.
func onePassColumns(sys *cs.R1CS, L []fr.Element, nbWires int) (A, B, C []fr.Element) {
	A = make([]fr.Element, nbWires)
	B = make([]fr.Element, nbWires)
	C = make([]fr.Element, nbWires)
	j := 0
	it := sys.GetR1CIterator()
	for c := it.Next(); c != nil; c = it.Next() {
		for k, side := range [3]constraint.LinearExpression{c.L, c.R, c.O} {
			for _, t := range side {
				addTerm(&[3][]fr.Element{A, B, C}[k][t.WireID()], t, &L[j], sys.Coefficients)
			}
		}
		j++
	}
	return A, B, C
}

// qapInputs compiles circuit at size and evaluates its Lagrange basis at
// a fixed τ: what columns takes.
func qapInputs(tb testing.TB, circuit string, size int) (*cs.R1CS, []fr.Element, int) {
	tb.Helper()
	sys, _, err := Compile(circuit, size)
	if err != nil {
		tb.Fatal(err)
	}
	nbWires := sys.NbInternalVariables + sys.GetNbPublicVariables() + sys.GetNbSecretVariables()
	var tau fr.Element
	tau.SetUint64(987654321)
	return sys, lagrangeAt(fft.NewDomain(uint64(sys.GetNbConstraints())), tau, sys.GetNbConstraints()), nbWires
}

// Runs of every length down to a few instructions, with foreign windows
// from none to wide, give the one pass's columns, for every circuit.
func TestColumnsOverRunsAreTheOnePassColumns(t *testing.T) {
	defer func(r, m, w int) { columnsMinRun, columnsMaxRuns, foreignWindow = r, m, w }(columnsMinRun, columnsMaxRuns, foreignWindow)
	columnsMaxRuns = 1 << 20
	for _, circuit := range []string{"chain", "sha256", "mimc"} {
		sys, L, nbWires := qapInputs(t, circuit, 1<<12)
		want := [3][]fr.Element{}
		want[0], want[1], want[2] = onePassColumns(sys, L, nbWires)
		for _, run := range []int{1 << 20, 1000, 37, 3} {
			for _, window := range []int{0, 5, 1 << 16} {
				columnsMinRun, foreignWindow = run, window
				A, B, C := columns(sys, L, nbWires)
				for k, got := range [3][]fr.Element{A, B, C} {
					for w := range got {
						if !got[w].Equal(&want[k][w]) {
							t.Fatalf("%s, runs of %d, window %d: side %d of wire %d differs from the one pass", circuit, run, window, k, w)
						}
					}
				}
			}
		}
	}
}

// columns in runs over the cores beside the one pass, at 2^20:
//
//	go test -run '^$' -bench BenchmarkColumns -benchtime 5x ./stages/groth16/keys/
func BenchmarkColumns(b *testing.B) {
	for _, circuit := range []string{"chain", "sha256"} {
		sys, L, nbWires := qapInputs(b, circuit, 1<<20)
		for _, f := range []struct {
			name string
			f    func(*cs.R1CS, []fr.Element, int) ([]fr.Element, []fr.Element, []fr.Element)
		}{{"one-pass", onePassColumns}, {"runs", columns}} {
			b.Run(circuit+"/"+f.name, func(b *testing.B) {
				for b.Loop() {
					f.f(sys, L, nbWires)
				}
			})
		}
	}
}
