// Package ref holds the references and input generators the cuda tests and
// benchmarks compare against: gnark's Groth16 H step and random vectors.
package ref

import (
	"math/big"
	"math/rand/v2"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// ComputeH is gnark v0.14.0's backend/groth16/bls12-381 computeH (an
// unexported function there), transcribed step for step; a, b, c have the
// domain's cardinality and are overwritten, the result is returned in a.
func ComputeH(a, b, c []fr.Element, domain *fft.Domain) []fr.Element {
	domain.FFTInverse(a, fft.DIF)
	domain.FFTInverse(b, fft.DIF)
	domain.FFTInverse(c, fft.DIF)

	domain.FFT(a, fft.DIT, fft.OnCoset())
	domain.FFT(b, fft.DIT, fft.OnCoset())
	domain.FFT(c, fft.DIT, fft.OnCoset())

	var den, one fr.Element
	one.SetOne()
	den.Exp(domain.FrMultiplicativeGen, big.NewInt(int64(domain.Cardinality)))
	den.Sub(&den, &one).Inverse(&den)

	for i := range a {
		a[i].Mul(&a[i], &b[i]).
			Sub(&a[i], &c[i]).
			Mul(&a[i], &den)
	}
	domain.FFTInverse(a, fft.DIF, fft.OnCoset())
	return a
}

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

// Fr returns n random field elements.
func Fr(rng *rand.Rand, n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i] = randFr(rng)
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

// distinct is how many distinct points the generators compute; longer
// vectors repeat them (cheap to make, still random-looking to an MSM with
// random scalars).
const distinct = 1 << 12

// G1 returns n random G1 points (min(n, 4096) distinct ones, repeated).
func G1(rng *rand.Rand, n int) []curve.G1Affine {
	m := min(n, distinct)
	_, _, g1, _ := curve.Generators()
	ks := Fr(rng, m)
	pts := curve.BatchScalarMultiplicationG1(&g1, ks)
	out := make([]curve.G1Affine, n)
	for i := range out {
		out[i] = pts[i%m]
	}
	return out
}

// G2 returns n random G2 points (min(n, 4096) distinct ones, repeated).
func G2(rng *rand.Rand, n int) []curve.G2Affine {
	m := min(n, distinct)
	_, _, _, g2 := curve.Generators()
	ks := Fr(rng, m)
	pts := curve.BatchScalarMultiplicationG2(&g2, ks)
	out := make([]curve.G2Affine, n)
	for i := range out {
		out[i] = pts[i%m]
	}
	return out
}

// Seed returns a fresh seed, logged by the tests so a failure reproduces.
func Seed() uint64 { return rand.Uint64() }
