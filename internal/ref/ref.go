// Package ref holds the references and input generators the CUDA
// kernels' tests and benchmarks (package cuda, cuda/internal/hostcheck,
// cmd/cudabench) compare against: gnark-crypto's NTTs, gnark's Groth16 H
// step, random vectors and points. The functions of this file are
// BLS12-381's; curves.go has each of them for any curve the kernels are
// built for (BLS12-381, BN254). It sits below every stage package, so
// that the kernels' tests need none.
package ref

import (
	"encoding/binary"
	"math/rand/v2"
	goruntime "runtime"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// NTT returns gnark-crypto's transform of x (x is left as it is):
// forward or inverse, DIF (natural in, bit-reversed out) or DIT, on the
// coset or not, exactly the fft.Domain calls the kernels must match.
func NTT(x []fr.Element, d *fft.Domain, inverse, dif, coset bool) []fr.Element {
	return BLS12381FFT.Transform(x, d, inverse, dif, coset)
}

// H is gnark v0.14.0's Groth16 computeH (backend/groth16/bls12-381) on
// host slices, with gnark-crypto's own calls: given a, b, c (the
// constraints' evaluations, d's cardinality each) it leaves in a the
// coefficients of H = (A·B − C) / Z in bit-reversed order; b and c are
// clobbered. The fused kernel (cuda's Stream.ComputeH) must match it bit
// for bit, as stages/groth16's ComputeHGeneric does.
func H(a, b, c []fr.Element, d *fft.Domain) { HOf(BLS12381FFT, a, b, c, d) }

// Fr returns n random field elements.
func Fr(rng *rand.Rand, n int) []fr.Element { return Scalars[fr.Element](rng, n) }

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
func G1N(rng *rand.Rand, n, m int) []curve.G1Affine { return Points(rng, BLS12381G1, n, m) }

// G2N is G1N over G2.
func G2N(rng *rand.Rand, n, m int) []curve.G2Affine { return Points(rng, BLS12381G2, n, m) }

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
