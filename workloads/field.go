package workloads

import (
	"github.com/consensys/gnark-crypto/ecc"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
)

// element is a scalar field element of gnark-crypto's, of either curve
// (E is the element type, P its pointer), for the assignments that
// compute in the field.
type element[E any] interface {
	*E
	SetBytes([]byte) *E
	SetOne() *E
	SetUint64(uint64) *E
	Square(*E) *E
	Add(*E, *E) *E
}

// randomElement returns a field element drawn from seed.
func randomElement[E any, P element[E]](seed uint64) E {
	r := rng(seed)
	var b [blsfr.Bytes]byte // both curves' scalars are 32 bytes
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	var e E
	P(&e).SetBytes(b[:])
	return e
}

// plusOne returns v, an element, plus one.
func plusOne[E any, P element[E]](v frontend.Variable) E {
	y := v.(E)
	var one E
	P(&one).SetOne()
	P(&y).Add(&y, &one)
	return y
}

// offByOne returns v plus one in curve's field: the value an unsatisfied
// assignment claims.
func offByOne(curve ecc.ID, v frontend.Variable) frontend.Variable {
	if curve == ecc.BN254 {
		return plusOne[bnfr.Element](v)
	}
	return plusOne[blsfr.Element](v)
}
