package workloads

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	nativemimc "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/mimc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/hash/mimc"

	"github.com/consensys/gnark-crypto/ecc"
)

func init() {
	register(Kind{
		Name:    "mimc",
		Doc:     "MiMC hash chain h <- MiMC(h) (gnark's std MiMC, dense)",
		New:     newMiMC,
		MinSize: 1,
	})
}

// mimcCircuit proves knowledge of a preimage X whose n-fold MiMC hash is
// the public Y.
type mimcCircuit struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`

	n int
}

func (c *mimcCircuit) Define(api frontend.API) error {
	h := c.X
	for i := 0; i < c.n; i++ {
		m, err := mimc.NewMiMC(api)
		if err != nil {
			return fmt.Errorf("mimc: %w", err)
		}
		m.Write(h)
		h = m.Sum()
	}
	api.AssertIsEqual(h, c.Y)
	return nil
}

type mimcChain struct{ n int }

// mimcCost is the constraint count of a chain of one hash and of each
// further hash, measured once.
var mimcCost = sync.OnceValue(func() [2]int {
	one, err1 := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &mimcCircuit{n: 1})
	two, err2 := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &mimcCircuit{n: 2})
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("mimc: measuring a hash: %v %v", err1, err2))
	}
	return [2]int{one.GetNbConstraints(), two.GetNbConstraints() - one.GetNbConstraints()}
})

func newMiMC(size int) (Instance, error) {
	n := max(1, (size-1)/mimcCost()[1])
	return mimcChain{n: n}, nil
}

func (c mimcChain) Circuit() frontend.Circuit { return &mimcCircuit{n: c.n} }

// Constraints: every hash of the chain costs the same.
func (c mimcChain) Constraints() int {
	k := mimcCost()
	return k[0] + (c.n-1)*k[1]
}

func (c mimcChain) Assignment(seed uint64) frontend.Circuit {
	x := randomElement(seed)
	h := x
	for i := 0; i < c.n; i++ {
		m := nativemimc.NewMiMC()
		b := h.Bytes()
		m.Write(b[:])
		h.SetBytes(m.Sum(nil))
	}
	return &mimcCircuit{X: x, Y: h, n: c.n}
}

func (c mimcChain) Unsatisfied(seed uint64) frontend.Circuit {
	a := c.Assignment(seed).(*mimcCircuit)
	y := a.Y.(fr.Element)
	var one fr.Element
	one.SetOne()
	y.Add(&y, &one)
	a.Y = y
	return a
}
