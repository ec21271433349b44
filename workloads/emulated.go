package workloads

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
	register(Kind{
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
type emulatedChain struct {
	onCurve
	n int
}

func newEmulated(curve ecc.ID, size int) (Instance, error) {
	// The most products whose modelled count stays a percent under size
	// (the model is within a fifth of a percent at 2^10 to 2^20).
	lo, hi := 1, max(2, size)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if emulatedModel(mid) <= size-size/100 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return emulatedChain{onCurve{curve}, lo}, nil
}

// emulatedModel models the constraints of n products: about 20.5 a
// product besides its range checks (the product, its deferred check),
// and std/rangecheck's cost, which falls as the checks grow in number:
// 16 checks of 32 bits a product and 13 of 64 (the product's limbs and
// carries), 9 more of 64 for the final equality, each check one
// constraint plus one a limb of the width gnark picks (plus one when the
// width does not divide the bits), and the table of 2^width entries.
func emulatedModel(n int) int {
	checks := [][2]int{{32, emulatedChecks * n}, {64, 13*n + 9}}
	limbs := func(bits, w int) int {
		l := (bits + w - 1) / w
		if l*w > bits {
			l++
		}
		return l
	}
	cost := func(w int) int {
		c := 1 << w
		for _, ch := range checks {
			c += ch[1] * (1 + limbs(ch[0], w))
		}
		return c
	}
	// std/rangecheck's choice of width: the least of its estimate over
	// 2..17 (its estimate is cost's).
	best := 2
	for w := 3; w < 18; w++ {
		if cost(w) < cost(best) {
			best = w
		}
	}
	return 25 + 41*n/2 + cost(best)
}

func (c emulatedChain) Circuit() frontend.Circuit {
	return &emulatedCircuit{X: make([]emulated.Element[fp], c.n+1), R: make([]frontend.Variable, emulatedChecks*c.n)}
}

// emulatedCounts memoizes Constraints by curve and product count.
var emulatedCounts sync.Map

// Constraints compiles the circuit, once per process and count: the
// count depends on the widths std/rangecheck picks for its limbs from the
// number of checks and on where gnark's builder cuts long sums into new
// wires, which no formula here follows. (So a setup reusing a cached
// .r1cs of this circuit compiles it once all the same.)
func (c emulatedChain) Constraints() int {
	key := [2]int{int(c.curve), c.n}
	if n, ok := emulatedCounts.Load(key); ok {
		return n.(int)
	}
	sys, err := frontend.Compile(c.curve.ScalarField(), r1cs.NewBuilder, c.Circuit())
	if err != nil {
		panic(fmt.Sprintf("emulated: compiling %d products: %v", c.n, err))
	}
	emulatedCounts.Store(key, sys.GetNbConstraints())
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
