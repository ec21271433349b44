package workloads

import (
	"fmt"
	"sync"

	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsmimc "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/mimc"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnmimc "github.com/consensys/gnark-crypto/ecc/bn254/fr/mimc"
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

type mimcChain struct {
	onCurve
	n int
}

// mimcCosts memoizes mimcCost by curve.
var mimcCosts sync.Map

// mimcCost is the constraint count over curve's field of a chain of one
// hash and of each further hash (the hash's rounds are the curve's),
// measured once.
func mimcCost(curve ecc.ID) [2]int {
	if k, ok := mimcCosts.Load(curve); ok {
		return k.([2]int)
	}
	one, err1 := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &mimcCircuit{n: 1})
	two, err2 := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &mimcCircuit{n: 2})
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("mimc: measuring a hash: %v %v", err1, err2))
	}
	k := [2]int{one.GetNbConstraints(), two.GetNbConstraints() - one.GetNbConstraints()}
	mimcCosts.Store(curve, k)
	return k
}

func newMiMC(curve ecc.ID, size int) (Instance, error) {
	n := max(1, (size-1)/mimcCost(curve)[1])
	return mimcChain{onCurve{curve}, n}, nil
}

func (c mimcChain) Circuit() frontend.Circuit { return &mimcCircuit{n: c.n} }

// Constraints: every hash of the chain costs the same.
func (c mimcChain) Constraints() int {
	k := mimcCost(c.curve)
	return k[0] + (c.n-1)*k[1]
}

func (c mimcChain) Assignment(seed uint64) frontend.Circuit {
	a := &mimcCircuit{n: c.n}
	if c.curve == ecc.BN254 {
		x := randomElement[bnfr.Element](seed)
		h := x
		for i := 0; i < c.n; i++ {
			m := bnmimc.NewMiMC()
			b := h.Bytes()
			m.Write(b[:])
			h.SetBytes(m.Sum(nil))
		}
		a.X, a.Y = x, h
		return a
	}
	x := randomElement[blsfr.Element](seed)
	h := x
	for i := 0; i < c.n; i++ {
		m := blsmimc.NewMiMC()
		b := h.Bytes()
		m.Write(b[:])
		h.SetBytes(m.Sum(nil))
	}
	a.X, a.Y = x, h
	return a
}

func (c mimcChain) Unsatisfied(seed uint64) frontend.Circuit {
	a := c.Assignment(seed).(*mimcCircuit)
	a.Y = offByOne(c.curve, a.Y)
	return a
}
