//go:build cudahost

package hostcheck

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/ref"
)

// The tests run once a curve: each is a generic function over the
// curve's gnark-crypto types (its Fr, Fp and Fp2 elements, its points),
// instantiated for BLS12-381 and BN254 as subtests named after the
// curve. These are the methods they call.

// elem is gnark-crypto's fr.Element or fp.Element, of either curve.
type elem[E any] interface {
	*E
	SetRandom() (*E, error)
	SetInt64(int64) *E
	SetUint64(uint64) *E
	SetOne() *E
	SetZero() *E
	Mul(x, y *E) *E
	Add(x, y *E) *E
	Sub(x, y *E) *E
	Neg(x *E) *E
	Square(x *E) *E
	Inverse(x *E) *E
	Exp(x E, k *big.Int) *E
	Equal(x *E) bool
	IsZero() bool
	IsOne() bool
	BigInt(*big.Int) *big.Int
	SetBigInt(*big.Int) *E
	SetBytes([]byte) *E
	String() string
}

// ext is gnark-crypto's E2 (Fp2), of either curve.
type ext[E any] interface {
	*E
	SetRandom() (*E, error)
	Mul(x, y *E) *E
	Square(x *E) *E
	Inverse(x *E) *E
	Equal(x *E) bool
}

// forCurves runs f as a subtest a curve: name is the curve's (cuda.Curve).
func forCurves(t *testing.T, bls12381, bn254 func(t *testing.T)) {
	t.Run(cuda.BLS12381.String(), bls12381)
	t.Run(cuda.BN254.String(), bn254)
}

// curveOfPoint is the cuda.Curve of the point type A.
func curveOfPoint[A any]() cuda.Curve {
	switch any(new(A)).(type) {
	case *bn254.G1Affine, *bn254.G2Affine:
		return cuda.BN254
	case *bls.G1Affine, *bls.G2Affine:
		return cuda.BLS12381
	}
	panic("no curve's point")
}

// words is e's memory as 64-bit limbs (gnark-crypto's elements are
// arrays of them).
func words[E any](e *E) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(e)), unsafe.Sizeof(*e)/8)
}

// modulus is E's field's modulus: -1, plus one.
func modulus[E any, PE elem[E]]() *big.Int {
	var m E
	PE(&m).SetInt64(-1)
	var b big.Int
	PE(&m).BigInt(&b)
	return b.Add(&b, big.NewInt(1))
}

// fromLimbs is the element whose raw limbs (Montgomery form, not
// reduced) are v's little-endian ones.
func fromLimbs[E any](v *big.Int) (e E) {
	limbs(v, words(&e))
	return e
}

// toBigRaw is e's raw limbs as an integer.
func toBigRaw[E any](e *E) *big.Int {
	w := words(e)
	v := new(big.Int)
	for i := len(w) - 1; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(w[i]))
	}
	return v
}

// isReduced reports whether e's raw limbs are below the modulus.
func isReduced[E any, PE elem[E]](e *E) bool {
	return toBigRaw(e).Cmp(modulus[E, PE]()) < 0
}

// randElem is an element with raw limbs uniform below the modulus.
func randElem[E any, PE elem[E]](r *rand.Rand) E {
	var e E
	w := words(&e)
	for i := range w {
		w[i] = r.Uint64()
	}
	return fromLimbs[E](new(big.Int).Mod(toBigRaw(&e), modulus[E, PE]()))
}

// randElems is n random elements (randElem).
func randElems[E any, PE elem[E]](r *rand.Rand, n int) []E {
	v := make([]E, n)
	for i := range v {
		v[i] = randElem[E, PE](r)
	}
	return v
}

// pair is the E2 element a0 + a1 u (gnark-crypto's E2{A0, A1}: two Fp
// elements in a row).
func pair[E2, Fp any](a0, a1 Fp) (e E2) {
	if unsafe.Sizeof(e) != 2*unsafe.Sizeof(a0) {
		panic("an E2 is not two Fp elements")
	}
	*(*[2]Fp)(unsafe.Pointer(&e)) = [2]Fp{a0, a1}
	return e
}

// edges are raw limb patterns at the edges of E's field: 0, 1, 2^64-1
// in the low limb, the high limb only, p-1, p-2, (p-1)/2. A
// multiplication's carry chains and its final subtraction are stressed
// there.
func edges[E any, PE elem[E]]() []E {
	p := modulus[E, PE]()
	var top E
	w := words(&top)
	w[len(w)-1] = 1
	var zero E
	return []E{
		zero, fromLimbs[E](big.NewInt(1)), fromLimbs[E](new(big.Int).SetUint64(^uint64(0))), top,
		fromLimbs[E](new(big.Int).Sub(p, big.NewInt(1))), fromLimbs[E](new(big.Int).Sub(p, big.NewInt(2))),
		fromLimbs[E](new(big.Int).Rsh(p, 1)),
	}
}

func limbs(v *big.Int, out []uint64) {
	m := new(big.Int).SetUint64(^uint64(0))
	for i := range out {
		out[i] = new(big.Int).And(v, m).Uint64()
		v = new(big.Int).Rsh(v, 64)
	}
}

// point is what the tests need of gnark-crypto's affine points.
type point[A, J any] interface {
	*A
	Equal(*A) bool
	Neg(*A) *A
	ScalarMultiplication(*A, *big.Int) *A
	FromJacobian(*J) *A
}

// jac is what the tests need of gnark-crypto's Jacobian points.
type jac[J, A, F any] interface {
	*J
	Equal(*J) bool
	MultiExp([]A, []F, ecc.MultiExpConfig) (*J, error)
	AddMixed(*A) *J
	FromAffine(*A) *J
}

// groupCase is one group of one curve: the emulation's (Group) and the
// references' (internal/ref).
type groupCase[F, A, J any] struct {
	Group[F, A, J]
	ref ref.Group[F, A, J]
}

var (
	blsG1 = groupCase[blsfr.Element, bls.G1Affine, bls.G1Jac]{BLS12381G1, ref.BLS12381G1}
	blsG2 = groupCase[blsfr.Element, bls.G2Affine, bls.G2Jac]{BLS12381G2, ref.BLS12381G2}
	bnG1  = groupCase[bnfr.Element, bn254.G1Affine, bn254.G1Jac]{BN254G1, ref.BN254G1}
	bnG2  = groupCase[bnfr.Element, bn254.G2Affine, bn254.G2Jac]{BN254G2, ref.BN254G2}
)

// groupOf is the groupCase of the types F, A, J.
func groupOf[F, A, J any]() groupCase[F, A, J] {
	for _, g := range []any{blsG1, blsG2, bnG1, bnG2} {
		if c, ok := g.(groupCase[F, A, J]); ok {
			return c
		}
	}
	panic("no group of these types")
}

// forGroups runs a test a group: subtests bls12-381/g1, bls12-381/g2,
// bn254/g1, bn254/g2 (the instantiations of one generic test, in that
// order).
func forGroups(t *testing.T, blsG1, blsG2, bnG1, bnG2 func(t *testing.T)) {
	forCurves(t, func(t *testing.T) {
		t.Run("g1", blsG1)
		t.Run("g2", blsG2)
	}, func(t *testing.T) {
		t.Run("g1", bnG1)
		t.Run("g2", bnG2)
	})
}

// fieldCase is one curve's scalar field: the emulation's (Field), the
// references' FFT and gnark-crypto's fft.NewDomain.
type fieldCase[F, D any] struct {
	Field[F, D]
	fft       ref.FFT[F, D]
	newDomain func(n uint64) *D
}

var (
	blsFr = fieldCase[blsfr.Element, blsfft.Domain]{BLS12381Fr, ref.BLS12381FFT, func(n uint64) *blsfft.Domain { return blsfft.NewDomain(n) }}
	bnFr  = fieldCase[bnfr.Element, bnfft.Domain]{BN254Fr, ref.BN254FFT, func(n uint64) *bnfft.Domain { return bnfft.NewDomain(n) }}
)

// fieldOf is the fieldCase of the types F, D.
func fieldOf[F, D any]() fieldCase[F, D] {
	for _, f := range []any{blsFr, bnFr} {
		if c, ok := f.(fieldCase[F, D]); ok {
			return c
		}
	}
	panic("no field of these types")
}
