package workloads

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
)

func init() {
	register(Kind{
		Name:    "chain",
		Doc:     "dense multiplication chain x <- x*x + i (one constraint per step)",
		New:     newChain,
		MinSize: 2,
	})
}

// chainCircuit proves knowledge of X such that n steps of x <- x*x + i
// (i = 1..n) end at the public Y.
type chainCircuit struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`

	n int
	// viaAPI writes the circuit over gnark's API with any builder (the
	// tests' reference; Define does so anyway for all but R1CS's).
	viaAPI bool
}

// Define writes the chain through the R1CS gadget (gadget.go) for gnark's
// R1CS builder and over the API (defineAPI) for any other: the same
// constraints, wires and coefficient table (a coefficient i a step).
func (c *chainCircuit) Define(api frontend.API) error {
	g, err := newGadget(api)
	if err != nil {
		return err
	}
	if g == nil || c.viaAPI {
		return c.defineAPI(api)
	}
	// The constants i are the circuit's coefficients, each first made
	// into a term by the next step's product, in order.
	g.coeffRun(1, int64(c.n))
	x := g.variable(c.X)
	k := constLin(1) // the step's constant, reused: sum keeps a copy
	for i := 1; i <= c.n; i++ {
		// api.Add(api.Mul(x, x), i): x * x = w, then w + i.
		k[0].coeff = int64(i)
		x = g.sum(g.mul(x, x), k)
	}
	// api.AssertIsEqual(x, Y): 1 * x = Y.
	g.assertIsEqual(x, g.variable(c.Y))
	return nil
}

// defineAPI is the chain over gnark's frontend.API, the circuit's first
// version.
func (c *chainCircuit) defineAPI(api frontend.API) error {
	x := c.X
	for i := 1; i <= c.n; i++ {
		x = api.Add(api.Mul(x, x), i)
	}
	api.AssertIsEqual(x, c.Y)
	return nil
}

type chain struct {
	onCurve
	n int
}

// newChain takes size-1 steps: size constraints with the final equality.
func newChain(curve ecc.ID, size int) (Instance, error) {
	if size < 2 {
		return nil, fmt.Errorf("chain: size %d below 2", size)
	}
	return chain{onCurve{curve}, size - 1}, nil
}

func (c chain) Circuit() frontend.Circuit { return &chainCircuit{n: c.n} }

// Constraints is a constraint a step and the final equality.
func (c chain) Constraints() int { return c.n + 1 }

func (c chain) Assignment(seed uint64) frontend.Circuit {
	a := &chainCircuit{n: c.n}
	if c.curve == ecc.BN254 {
		a.X, a.Y = chainValues[bnfr.Element](seed, c.n)
	} else {
		a.X, a.Y = chainValues[blsfr.Element](seed, c.n)
	}
	return a
}

// chainValues are the chain's input drawn from seed and its output after
// n steps.
func chainValues[E any, P element[E]](seed uint64, n int) (x, y E) {
	x = randomElement[E, P](seed)
	y = x
	var k E
	for i := 1; i <= n; i++ {
		P(&k).SetUint64(uint64(i))
		P(&y).Square(&y)
		P(&y).Add(&y, &k)
	}
	return x, y
}

func (c chain) Unsatisfied(seed uint64) frontend.Circuit {
	a := c.Assignment(seed).(*chainCircuit)
	a.Y = offByOne(c.curve, a.Y)
	return a
}
