package circuits

import (
	"fmt"
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/math/emulated/emparams"
	"github.com/consensys/gnark/std/rangecheck"
)

func init() {
	register(Family{
		Name:    "emulated",
		Doc:     "secp256k1 base-field products and 32-bit range checks (gnark's std/math/emulated and std/rangecheck; commits)",
		New:     newEmulated,
		MinSize: 1,
	})
}

// emulatedChecks is the 32-bit range checks a product of the emulated
// circuit comes with.
const emulatedChecks = 16

// fp is the emulated field: secp256k1's base field, four 64-bit limbs.
type fp = emparams.Secp256k1Fp

// emulatedCircuit proves knowledge of n+1 elements of secp256k1's base
// field whose product is the public Prod (n products in the emulated
// field, each checked by std/math/emulated's deferred product check and
// limb range checks) and of emulatedChecks·n values under 2^32
// (std/rangecheck). Both gadgets commit (api.Commit), through one
// commitment: every partition's proof carries a Pedersen commitment to
// about half of its wires.
type emulatedCircuit struct {
	X    []emulated.Element[fp]
	R    []frontend.Variable
	Prod emulated.Element[fp] `gnark:",public"`
}

func (c *emulatedCircuit) Define(api frontend.API) error {
	f, err := emulated.NewField[fp](api)
	if err != nil {
		return fmt.Errorf("emulated: %w", err)
	}
	rc := rangecheck.New(api)
	p := &c.X[0]
	for i := 1; i < len(c.X); i++ {
		p = f.Mul(p, &c.X[i])
		for _, r := range c.R[(i-1)*emulatedChecks : i*emulatedChecks] {
			rc.Check(r, 32)
		}
	}
	f.AssertIsEqual(p, &c.Prod)
	return nil
}

// emulatedChain is the emulated circuit of n products.
type emulatedChain struct{ n int }

// emulatedPerProduct bounds the constraints of a product and its range
// checks from above (about 219 at 2^10, 205 at 2^16, fewer as the range
// checks' limbs widen with their count), and emulatedFixed the rest (the
// final equality, the range-check table), so that New's instance stays
// under its size.
const (
	emulatedPerProduct = 222
	emulatedFixed      = 300
)

func newEmulated(size int) (Instance, error) {
	return emulatedChain{n: max(1, (size-emulatedFixed)/emulatedPerProduct)}, nil
}

func (c emulatedChain) Circuit() frontend.Circuit {
	return &emulatedCircuit{X: make([]emulated.Element[fp], c.n+1), R: make([]frontend.Variable, emulatedChecks*c.n)}
}

// emulatedCounts memoizes Constraints by product count.
var emulatedCounts sync.Map

// Constraints compiles the circuit, once per process and count: the
// count depends on the widths std/rangecheck picks for its limbs from the
// number of checks and on where gnark's builder cuts long sums into new
// wires, which no formula here follows. (So a setup reusing a cached
// .r1cs of this circuit compiles it once all the same.)
func (c emulatedChain) Constraints() int {
	if n, ok := emulatedCounts.Load(c.n); ok {
		return n.(int)
	}
	sys, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, c.Circuit())
	if err != nil {
		panic(fmt.Sprintf("emulated: compiling %d products: %v", c.n, err))
	}
	emulatedCounts.Store(c.n, sys.GetNbConstraints())
	return sys.GetNbConstraints()
}

func (c emulatedChain) Assignment(seed uint64) frontend.Circuit { return c.assign(seed, 0) }

// Unsatisfied claims the product plus one: the final equality fails.
func (c emulatedChain) Unsatisfied(seed uint64) frontend.Circuit { return c.assign(seed, 1) }

// assign draws the factors and the range-checked values from seed and
// claims their product plus off (mod p) as Prod.
func (c emulatedChain) assign(seed uint64, off int64) *emulatedCircuit {
	r := rng(seed)
	mod := fp{}.Modulus()
	a := &emulatedCircuit{X: make([]emulated.Element[fp], c.n+1), R: make([]frontend.Variable, emulatedChecks*c.n)}
	prod := big.NewInt(1)
	for i := range a.X {
		var b [40]byte
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		x := new(big.Int).SetBytes(b[:])
		x.Mod(x, mod)
		a.X[i] = emulated.ValueOf[fp](x)
		prod.Mul(prod, x).Mod(prod, mod)
	}
	for i := range a.R {
		a.R[i] = r.Uint32()
	}
	prod.Add(prod, big.NewInt(off)).Mod(prod, mod)
	a.Prod = emulated.ValueOf[fp](prod)
	return a
}
