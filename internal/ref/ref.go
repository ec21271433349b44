// Package ref holds the references and input generators the CUDA
// kernels' tests and benchmarks (package cuda, cuda/internal/hostcheck,
// cmd/cudabench) compare against: gnark-crypto's NTTs, gnark's Groth16 H
// step, random vectors and points. It sits below every stage package, so
// that the kernels' tests need none.
package ref

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	goruntime "runtime"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// NTT returns gnark-crypto's transform of x (x is left as it is): forward
// or inverse, DIF (natural in, bit-reversed out) or DIT, on the coset or
// not, exactly the fft.Domain calls the kernels must match.
func NTT(x []fr.Element, d *fft.Domain, inverse, dif, coset bool) []fr.Element {
	out := append([]fr.Element(nil), x...)
	dec := fft.DIT
	if dif {
		dec = fft.DIF
	}
	var opts []fft.Option
	if coset {
		opts = append(opts, fft.OnCoset())
	}
	if inverse {
		d.FFTInverse(out, dec, opts...)
	} else {
		d.FFT(out, dec, opts...)
	}
	return out
}

// H is gnark v0.14.0's Groth16 computeH (backend/groth16/bls12-381) on
// host slices, with gnark-crypto's own calls: given a, b, c (the
// constraints' evaluations, d's cardinality each) it leaves in a the
// coefficients of H = (A·B − C) / Z in bit-reversed order; b and c are
// clobbered. The fused kernel (cuda's Stream.ComputeH) must match it bit
// for bit, as stages/groth16's ComputeHGeneric does.
func H(a, b, c []fr.Element, d *fft.Domain) {
	for _, v := range [][]fr.Element{a, b, c} {
		d.FFTInverse(v, fft.DIF)
	}
	for _, v := range [][]fr.Element{a, b, c} {
		d.FFT(v, fft.DIT, fft.OnCoset())
	}
	// On the coset, Z(x) = x^n − 1 is the constant g^n − 1: divide by it.
	var den, one fr.Element
	one.SetOne()
	den.Exp(d.FrMultiplicativeGen, new(big.Int).SetUint64(d.Cardinality))
	den.Sub(&den, &one).Inverse(&den)
	for i := range a {
		a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &den)
	}
	d.FFTInverse(a, fft.DIF, fft.OnCoset())
}

// Fr returns n random field elements.
func Fr(rng *rand.Rand, n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i] = randFr(rng)
	}
	return v
}

// Fp returns n random Fp elements (48 random bytes each, reduced mod p).
func Fp(rng *rand.Rand, n int) []fp.Element {
	v := make([]fp.Element, n)
	for i := range v {
		var b [48]byte
		for j := 0; j < len(b); j += 8 {
			binary.LittleEndian.PutUint64(b[j:], rng.Uint64())
		}
		v[i].SetBytes(b[:])
	}
	return v
}

func randFr(rng *rand.Rand) fr.Element {
	var b [32]byte
	for i := 0; i < 32; i += 8 {
		x := rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(x >> (8 * j))
		}
	}
	var e fr.Element
	e.SetBytes(b[:]) // reduced mod r
	return e
}

// Distinct is how many distinct points G1 and G2 compute; longer vectors
// repeat them (cheap to make, still random-looking to an MSM with random
// scalars, but a repeated set of 4096 points stays in the GPU's L2 cache
// where a proving key's bases would not: G1N and G2N make more).
const Distinct = 1 << 12

// G1 returns n random G1 points (min(n, Distinct) distinct ones, repeated).
func G1(rng *rand.Rand, n int) []curve.G1Affine { return G1N(rng, n, Distinct) }

// G2 returns n random G2 points (min(n, Distinct) distinct ones, repeated).
func G2(rng *rand.Rand, n int) []curve.G2Affine { return G2N(rng, n, Distinct) }

// G1N returns n random G1 points, min(n, m) distinct ones repeated (m <= 0:
// all distinct). Beyond Distinct points it makes sums A[i%Distinct] +
// B[i/Distinct] of two random sets, much faster than a scalar
// multiplication per point.
func G1N(rng *rand.Rand, n, m int) []curve.G1Affine {
	_, _, g1, _ := curve.Generators()
	d := distinctOf(n, m)
	if d <= Distinct {
		return repeat(curve.BatchScalarMultiplicationG1(&g1, Fr(rng, d)), n)
	}
	a := curve.BatchScalarMultiplicationG1(&g1, Fr(rng, Distinct))
	b := curve.BatchScalarMultiplicationG1(&g1, Fr(rng, (d+Distinct-1)/Distinct))
	pts := make([]curve.G1Affine, d)
	inChunks(d, func(lo, hi int) {
		jac := make([]curve.G1Jac, hi-lo)
		for i := range jac {
			jac[i].FromAffine(&b[(lo+i)/Distinct])
			jac[i].AddMixed(&a[(lo+i)%Distinct])
		}
		copy(pts[lo:hi], curve.BatchJacobianToAffineG1(jac))
	})
	return repeat(pts, n)
}

// G2N is G1N over G2.
func G2N(rng *rand.Rand, n, m int) []curve.G2Affine {
	_, _, _, g2 := curve.Generators()
	d := distinctOf(n, m)
	if d <= Distinct {
		return repeat(curve.BatchScalarMultiplicationG2(&g2, Fr(rng, d)), n)
	}
	a := curve.BatchScalarMultiplicationG2(&g2, Fr(rng, Distinct))
	b := curve.BatchScalarMultiplicationG2(&g2, Fr(rng, (d+Distinct-1)/Distinct))
	pts := make([]curve.G2Affine, d)
	inChunks(d, func(lo, hi int) {
		var jac curve.G2Jac
		for i := lo; i < hi; i++ {
			jac.FromAffine(&b[i/Distinct])
			jac.AddMixed(&a[i%Distinct])
			pts[i].FromJacobian(&jac)
		}
	})
	return repeat(pts, n)
}

// inChunks runs f over [0, n) in chunks, on every core.
func inChunks(n int, f func(lo, hi int)) {
	const chunk = 1 << 14
	var wg sync.WaitGroup
	sem := make(chan struct{}, goruntime.NumCPU())
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

func distinctOf(n, m int) int {
	if m <= 0 || m > n {
		return n
	}
	return m
}

func repeat[T any](pts []T, n int) []T {
	if len(pts) == n {
		return pts
	}
	out := make([]T, n)
	for i := range out {
		out[i] = pts[i%len(pts)]
	}
	return out
}

// Seed returns a fresh seed, logged by the tests so a failure reproduces.
func Seed() uint64 { return rand.Uint64() }
