package ref

import (
	"math/big"
	"math/rand/v2"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"
)

// The references over any curve the kernels are built for (BLS12-381,
// BN254): one generic implementation over gnark-crypto's types, and a
// value a curve for what differs in name only between gnark-crypto's
// packages (generators, batch calls, the fft package's options). The
// BLS12-381 functions of ref.go are these on BLS12381G1, BLS12381G2 and
// BLS12381FFT.

// scalar is what the references need of gnark-crypto's fr.Element.
type scalar[F any] interface {
	*F
	SetBytes(e []byte) *F
	SetOne() *F
	Exp(x F, k *big.Int) *F
	Mul(x, y *F) *F
	Sub(x, y *F) *F
	Inverse(x *F) *F
}

// jacobian is what the references need of gnark-crypto's Jacobian points.
type jacobian[J, A any] interface {
	*J
	FromAffine(a *A) *J
	AddMixed(a *A) *J
}

// Group is one group of a curve: F its scalars, A and J its affine and
// Jacobian points.
type Group[F, A, J any] struct {
	gen func() A
	// batchMul is gnark-crypto's BatchScalarMultiplicationG1 or G2.
	batchMul func(base *A, scalars []F) []A
	// toAffine converts a chunk of Jacobian points.
	toAffine func(jac []J) []A
}

// The groups of the curves.
var (
	BLS12381G1 = Group[blsfr.Element, bls.G1Affine, bls.G1Jac]{
		gen:      func() bls.G1Affine { _, _, g, _ := bls.Generators(); return g },
		batchMul: bls.BatchScalarMultiplicationG1,
		toAffine: bls.BatchJacobianToAffineG1,
	}
	BLS12381G2 = Group[blsfr.Element, bls.G2Affine, bls.G2Jac]{
		gen:      func() bls.G2Affine { _, _, _, g := bls.Generators(); return g },
		batchMul: bls.BatchScalarMultiplicationG2,
		toAffine: perPoint[bls.G2Affine, *bls.G2Affine, bls.G2Jac],
	}
	BN254G1 = Group[bnfr.Element, bn254.G1Affine, bn254.G1Jac]{
		gen:      func() bn254.G1Affine { _, _, g, _ := bn254.Generators(); return g },
		batchMul: bn254.BatchScalarMultiplicationG1,
		toAffine: bn254.BatchJacobianToAffineG1,
	}
	BN254G2 = Group[bnfr.Element, bn254.G2Affine, bn254.G2Jac]{
		gen:      func() bn254.G2Affine { _, _, _, g := bn254.Generators(); return g },
		batchMul: bn254.BatchScalarMultiplicationG2,
		toAffine: perPoint[bn254.G2Affine, *bn254.G2Affine, bn254.G2Jac],
	}
)

type affine[A, J any] interface {
	*A
	FromJacobian(p *J) *A
}

func perPoint[A any, PA affine[A, J], J any](jac []J) []A {
	out := make([]A, len(jac))
	for i := range jac {
		PA(&out[i]).FromJacobian(&jac[i])
	}
	return out
}

// Scalars returns n random elements of F (32 random bytes each, reduced
// modulo the field's order).
func Scalars[F any, PF scalar[F]](rng *rand.Rand, n int) []F {
	v := make([]F, n)
	var b [32]byte
	for i := range v {
		for j := 0; j < 32; j += 8 {
			x := rng.Uint64()
			for k := 0; k < 8; k++ {
				b[j+k] = byte(x >> (8 * k))
			}
		}
		PF(&v[i]).SetBytes(b[:])
	}
	return v
}

// Points returns n random points of g, min(n, m) distinct ones repeated
// (m <= 0: all distinct). Beyond Distinct points it makes sums
// A[i%Distinct] + B[i/Distinct] of two random sets, much faster than a
// scalar multiplication per point.
func Points[F any, PF scalar[F], A any, J any, PJ jacobian[J, A]](rng *rand.Rand, g Group[F, A, J], n, m int) []A {
	gen := g.gen()
	d := distinctOf(n, m)
	if d <= Distinct {
		return repeat(g.batchMul(&gen, Scalars[F, PF](rng, d)), n)
	}
	a := g.batchMul(&gen, Scalars[F, PF](rng, Distinct))
	b := g.batchMul(&gen, Scalars[F, PF](rng, (d+Distinct-1)/Distinct))
	pts := make([]A, d)
	inChunks(d, func(lo, hi int) {
		jac := make([]J, hi-lo)
		for i := range jac {
			PJ(&jac[i]).FromAffine(&b[(lo+i)/Distinct])
			PJ(&jac[i]).AddMixed(&a[(lo+i)%Distinct])
		}
		copy(pts[lo:hi], g.toAffine(jac))
	})
	return repeat(pts, n)
}

// FFT is a curve's fft.Domain as the references call it.
type FFT[F, D any] struct {
	// transform is gnark-crypto's d.FFT(v, DIF or DIT, [OnCoset]) or
	// d.FFTInverse.
	transform func(d *D, v []F, inverse, dif, coset bool)
	// coset is d's coset generator and cardinality.
	coset func(d *D) (F, uint64)
}

// The scalar fields' FFTs of the curves.
var (
	BLS12381FFT = FFT[blsfr.Element, blsfft.Domain]{
		transform: func(d *blsfft.Domain, v []blsfr.Element, inverse, dif, coset bool) {
			dec := blsfft.DIT
			if dif {
				dec = blsfft.DIF
			}
			var opts []blsfft.Option
			if coset {
				opts = append(opts, blsfft.OnCoset())
			}
			if inverse {
				d.FFTInverse(v, dec, opts...)
			} else {
				d.FFT(v, dec, opts...)
			}
		},
		coset: func(d *blsfft.Domain) (blsfr.Element, uint64) { return d.FrMultiplicativeGen, d.Cardinality },
	}
	BN254FFT = FFT[bnfr.Element, bnfft.Domain]{
		transform: func(d *bnfft.Domain, v []bnfr.Element, inverse, dif, coset bool) {
			dec := bnfft.DIT
			if dif {
				dec = bnfft.DIF
			}
			var opts []bnfft.Option
			if coset {
				opts = append(opts, bnfft.OnCoset())
			}
			if inverse {
				d.FFTInverse(v, dec, opts...)
			} else {
				d.FFT(v, dec, opts...)
			}
		},
		coset: func(d *bnfft.Domain) (bnfr.Element, uint64) { return d.FrMultiplicativeGen, d.Cardinality },
	}
)

// Transform returns gnark-crypto's transform of x (x is left as it is):
// forward or inverse, DIF (natural in, bit-reversed out) or DIT, on the
// coset or not, exactly the fft.Domain calls the kernels must match.
func (f FFT[F, D]) Transform(x []F, d *D, inverse, dif, coset bool) []F {
	out := append([]F(nil), x...)
	f.transform(d, out, inverse, dif, coset)
	return out
}

// HOf is gnark v0.14.0's Groth16 computeH on host slices for the curve
// of f (H for BLS12-381): given a, b, c (the constraints' evaluations,
// d's cardinality each) it leaves in a the coefficients of H = (A·B − C)
// / Z in bit-reversed order; b and c are clobbered.
func HOf[F any, PF scalar[F], D any](f FFT[F, D], a, b, c []F, d *D) {
	for _, v := range [][]F{a, b, c} {
		f.transform(d, v, true, true, false)
	}
	for _, v := range [][]F{a, b, c} {
		f.transform(d, v, false, false, true)
	}
	// On the coset, Z(x) = x^n − 1 is the constant g^n − 1: divide by it.
	g, n := f.coset(d)
	var den, one F
	PF(&one).SetOne()
	PF(&den).Exp(g, new(big.Int).SetUint64(n))
	PF(&den).Sub(&den, &one)
	PF(&den).Inverse(&den)
	for i := range a {
		PF(&a[i]).Mul(&a[i], &b[i])
		PF(&a[i]).Sub(&a[i], &c[i])
		PF(&a[i]).Mul(&a[i], &den)
	}
	f.transform(d, a, true, true, true)
}

// MulGenerator is the generator times each scalar, affine: gnark-crypto's
// BatchScalarMultiplicationG1 or G2, the reference of the fixed-base
// kernels.
func (g Group[F, A, J]) MulGenerator(scalars []F) []A {
	gen := g.gen()
	return g.batchMul(&gen, scalars)
}
