package groth16

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/prooflane/prooflane/workloads"
)

// sameSolution fails t where got is not gnark's solution of w, element
// for element.
func sameSolution(t *testing.T, sys *cs.R1CS, a frontend.Circuit, got *Solution) {
	t.Helper()
	w, err := frontend.NewWitness(a, ecc.BLS12_381.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	res, err := sys.Solve(w)
	if err != nil {
		t.Fatal(err)
	}
	want := res.(*cs.R1CSSolution)
	for _, v := range []struct {
		name      string
		got, want []fr.Element
	}{{"wires", got.Wires, want.W}, {"a", got.A, want.A}, {"b", got.B, want.B}, {"c", got.C, want.C}} {
		if !reflect.DeepEqual(v.got, v.want) {
			t.Errorf("%s differ from gnark's (%d against %d values)", v.name, len(v.got), len(v.want))
		}
		if cap(v.got) != cap(v.want) {
			t.Errorf("%s: capacity %d, gnark's %d", v.name, cap(v.got), cap(v.want))
		}
	}
}

// The field solver's wires and A, B, C are gnark's solver's, element for
// element: chain and mimc (dense values, a constraint a level) and a
// circuit of hints and of unknowns in L, in R and under coefficients
// (hinted), each on several witnesses.
func TestTheFieldSolverFindsGnarksSolution(t *testing.T) {
	for _, circuit := range []string{"chain", "mimc"} {
		for _, size := range []int{1 << 9, 1 << 13} {
			inst, sys := compiled(t, circuit, size)
			var field fieldSystem
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s_%d/seed_%d", circuit, size, seed), func(t *testing.T) {
					a := inst.Assignment(workloads.PartitionSeed(7, int(seed)))
					got, err := solveField(sys, &field, nil, witnessVector(t, a))
					if err != nil {
						t.Fatalf("field solver: %v", err)
					}
					sameSolution(t, sys, a, got)
				})
			}
		}
	}
	for _, x := range []int64{3, -11, 1 << 50} {
		t.Run(fmt.Sprintf("coefficients/x_%d", x), func(t *testing.T) {
			sys, w := underCoefficients(x)
			var field fieldSystem
			got, err := solveField(sys, &field, nil, w)
			if err != nil {
				t.Fatalf("field solver: %v", err)
			}
			gw, err := witness.New(ecc.BLS12_381.ScalarField())
			if err != nil {
				t.Fatal(err)
			}
			ch := make(chan any, len(w))
			for i := range w {
				ch <- w[i]
			}
			close(ch)
			if err := gw.Fill(1, len(w)-1, ch); err != nil {
				t.Fatal(err)
			}
			res, err := sys.Solve(gw)
			if err != nil {
				t.Fatal(err)
			}
			want := res.(*cs.R1CSSolution)
			if !reflect.DeepEqual(got.Wires, []fr.Element(want.W)) || !reflect.DeepEqual(got.A, []fr.Element(want.A)) ||
				!reflect.DeepEqual(got.B, []fr.Element(want.B)) || !reflect.DeepEqual(got.C, []fr.Element(want.C)) {
				t.Error("the solution differs from gnark's")
			}
		})
	}
	c, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &hinted{})
	if err != nil {
		t.Fatal(err)
	}
	sys := c.(*cs.R1CS)
	var field fieldSystem
	for i, x := range []int64{3, 1 << 30, -5, 0} {
		t.Run(fmt.Sprintf("hinted/x_%d", x), func(t *testing.T) {
			a := hintedAssignment(x, int64(i)+2)
			got, err := solveField(sys, &field, nil, witnessVector(t, a))
			if err != nil {
				t.Fatalf("field solver: %v", err)
			}
			sameSolution(t, sys, a, got)
		})
	}
}

// hinted has gnark's hints (bits, an inverse, a zero test, a quotient)
// and constraints whose unknown is in L, in R or has a coefficient other
// than 1.
type hinted struct {
	X, D frontend.Variable
	Y    frontend.Variable `gnark:",public"`
}

func (c *hinted) Define(api frontend.API) error {
	bits := api.ToBinary(api.Add(c.X, 1<<31), 32)
	s := api.FromBinary(bits...)
	q := api.Div(api.Mul(s, 7), c.D)        // q·D = 7s: the unknown in L
	r := api.DivUnchecked(c.D, q)           // r·q = D: another quotient
	z := api.IsZero(api.Sub(c.X, 0))        // an inverse and a zero test
	v := api.Inverse(api.Add(c.D, 3))       // unknown in L with D+3 in R
	w := api.Mul(api.Add(q, 5), api.Neg(v)) // a negated product
	api.AssertIsEqual(api.Add(q, r, z, w, api.Mul(3, s)), c.Y)
	return nil
}

// hintedAssignment is a satisfying assignment of hinted for x and d.
func hintedAssignment(x, d int64) *hinted {
	var X, D, s, q, r, z, v, w, y, t fr.Element
	setSmallSlow(&X, x)
	setSmallSlow(&D, d)
	t.SetUint64(1 << 31)
	s.Add(&X, &t) // bits of x + 2^31, which is in 0..2^32
	q.SetUint64(7)
	q.Mul(&q, &s).Div(&q, &D)
	r.Div(&D, &q)
	if X.IsZero() {
		z.SetOne()
	}
	t.SetUint64(3)
	v.Add(&D, &t).Inverse(&v)
	t.SetUint64(5)
	w.Add(&q, &t).Mul(&w, &v).Neg(&w)
	t.SetUint64(3)
	y.Mul(&t, &s).Add(&y, &q).Add(&y, &r).Add(&y, &z).Add(&y, &w)
	return &hinted{X: X, D: D, Y: y}
}

// What the field solver does not run goes to gnark's solver: an
// unsatisfied witness, a lookup (a solvable blueprint), a system with a
// log, and sha256 (its levels hold about a hundred instructions, which
// gnark's solver spreads over the cores).
func TestTheFieldSolverLeavesWhatItDoesNotRun(t *testing.T) {
	inst, sys := compiled(t, "chain", 1<<9)
	var field fieldSystem
	if _, err := solveField(sys, &field, nil, witnessVector(t, inst.Unsatisfied(3))); !errors.Is(err, errNotField) {
		t.Errorf("chain, an unsatisfied witness: %v, want errNotField", err)
	}
	if _, err := solveField(sys, &field, nil, witnessVector(t, inst.Assignment(3))); err != nil {
		t.Errorf("chain after an unsatisfied witness: %v", err)
	}
	inst, sys = compiled(t, "sha256", 1<<12)
	var wide fieldSystem
	if _, err := solveField(sys, &wide, nil, witnessVector(t, inst.Assignment(3))); !errors.Is(err, errNotField) {
		t.Errorf("sha256: %v, want errNotField", err)
	}
	inst, sys = compiled(t, "emulated", 1<<12)
	var lookups fieldSystem
	if _, err := solveField(sys, &lookups, nil, witnessVector(t, inst.Assignment(3))); !errors.Is(err, errNotField) {
		t.Errorf("emulated (range checks by lookups): %v, want errNotField", err)
	}
	c, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &squares{n: 2, log: true})
	if err != nil {
		t.Fatal(err)
	}
	var logged fieldSystem
	if _, err := solveField(c.(*cs.R1CS), &logged, nil, witnessVector(t, &squares{X: 3, Y: 81, n: 2})); !errors.Is(err, errNotField) {
		t.Errorf("a circuit with a log: %v, want errNotField", err)
	}
}

// underCoefficients is a system written by hand, as a gadget writes one,
// whose unknowns sit under coefficients -1 and 3 in O, L and R, and its
// witness (Y, X) for x:
//
//	x · x = -u          u = -x²
//	3v · 1 = u          v = u/3
//	x · (-w) = v        w = -v/x
//	(v + 2) · 1 = Y
func underCoefficients(x int64) (*cs.R1CS, fr.Vector) {
	sys := cs.NewR1CS(4)
	one := sys.AddPublicVariable("1")
	y := sys.AddPublicVariable("Y")
	xw := sys.AddSecretVariable("X")
	u, v, w := sys.AddInternalVariable(), sys.AddInternalVariable(), sys.AddInternalVariable()
	term := func(c int64, id int) constraint.Term {
		var e fr.Element
		setSmallSlow(&e, c)
		var k constraint.U64
		copy(k[:], e[:])
		return sys.MakeTerm(k, id)
	}
	bp := sys.AddBlueprint(&constraint.BlueprintGenericR1C{})
	lin := func(ts ...constraint.Term) constraint.LinearExpression { return ts }
	sys.AddR1C(constraint.R1C{L: lin(term(1, xw)), R: lin(term(1, xw)), O: lin(term(-1, u))}, bp)
	sys.AddR1C(constraint.R1C{L: lin(term(3, v)), R: lin(term(1, one)), O: lin(term(1, u))}, bp)
	sys.AddR1C(constraint.R1C{L: lin(term(1, xw)), R: lin(term(-1, w)), O: lin(term(1, v))}, bp)
	sys.AddR1C(constraint.R1C{L: lin(term(1, v), term(2, one)), R: lin(term(1, one)), O: lin(term(1, y))}, bp)
	var X, V, t fr.Element
	setSmallSlow(&X, x)
	V.Square(&X).Neg(&V)
	t.SetUint64(3)
	V.Div(&V, &t)
	t.SetUint64(2)
	V.Add(&V, &t)
	return sys, fr.Vector{V, X}
}
