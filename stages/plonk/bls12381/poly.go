package plonk

import (
	"math/big"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/internal/split"
)

// Host polynomial helpers: coefficients in canonical form, lowest first.

// parallel runs f over [0, n) in chunks on every core (at least 4096
// elements a chunk).
func parallel(n int, f func(lo, hi int)) { split.Run(n, 4096, f) }

// eval returns p(x), Horner over chunks in parallel.
func eval(p []fr.Element, x fr.Element) fr.Element {
	tasks := min(runtime.GOMAXPROCS(0), max(1, len(p)/(1<<14)))
	if tasks <= 1 {
		return horner(p, x)
	}
	chunk := (len(p) + tasks - 1) / tasks
	parts := make([]fr.Element, (len(p)+chunk-1)/chunk)
	var wg sync.WaitGroup
	for c := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo := c * chunk
			v := horner(p[lo:min(lo+chunk, len(p))], x)
			var xl fr.Element
			xl.Exp(x, big.NewInt(int64(lo)))
			parts[c].Mul(&v, &xl)
		}()
	}
	wg.Wait()
	var res fr.Element
	for i := range parts {
		res.Add(&res, &parts[i])
	}
	return res
}

func horner(p []fr.Element, x fr.Element) fr.Element {
	var r fr.Element
	for i := len(p) - 1; i >= 0; i-- {
		r.Mul(&r, &x).Add(&r, &p[i])
	}
	return r
}

// divideByXMinusA returns (f - f(a)) / (X - a) by synthetic division,
// in f's memory: f[1:] of the result.
func divideByXMinusA(f []fr.Element, fa, a fr.Element) []fr.Element {
	f[0].Sub(&f[0], &fa)
	var t fr.Element
	for i := len(f) - 2; i >= 0; i-- {
		t.Mul(&f[i+1], &a)
		f[i].Add(&f[i], &t)
	}
	return f[1:]
}

// blinded returns the coefficients of p + b·(Xⁿ-1), n = len(p), in a new
// slice of n+len(b) (gnark's getBlindedCoefficients).
func blinded(p, b []fr.Element) []fr.Element {
	out := make([]fr.Element, len(p)+len(b))
	copy(out, p)
	copy(out[len(p):], b)
	for i := range b {
		out[i].Sub(&out[i], &b[i])
	}
	return out
}

// evalBlinded returns p(ζ) + b(ζ)(ζⁿ-1), n = len(p).
func evalBlinded(p, b []fr.Element, zeta fr.Element) fr.Element {
	v := eval(p, zeta)
	bz := horner(b, zeta)
	var t fr.Element
	one := fr.One()
	t.Exp(zeta, big.NewInt(int64(len(p)))).Sub(&t, &one)
	bz.Mul(&bz, &t)
	v.Add(&v, &bz)
	return v
}

// commitBlinding returns the commitment of b·(Xⁿ-1) for a blinding
// polynomial b of a few coefficients: Σ bᵢ([τⁿ⁺ⁱ] - [τⁱ]), on the host
// (gnark's commitBlindingFactor).
func commitBlinding(n int, b []fr.Element, g1 []curve.G1Affine) curve.G1Affine {
	var lo, hi curve.G1Affine
	lo.MultiExp(g1[:len(b)], b, ecc.MultiExpConfig{})
	hi.MultiExp(g1[n:n+len(b)], b, ecc.MultiExpConfig{})
	hi.Sub(&hi, &lo)
	return hi
}

// randomPoly returns a random polynomial of degree d.
func randomPoly(d int) ([]fr.Element, error) {
	p := make([]fr.Element, d+1)
	for i := range p {
		if _, err := p[i].SetRandom(); err != nil {
			return nil, err
		}
	}
	return p, nil
}
