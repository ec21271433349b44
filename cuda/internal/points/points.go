// Package points converts the device's point representations to
// gnark-crypto's: XYZZ accumulators (x = X/ZZ, y = Y/ZZZ, Montgomery form,
// laid out exactly as the device writes them) to Jacobian points, and the
// per-window sums of a Pippenger MSM to the final result.
package points

import (
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// G1XYZZ is the device's G1 accumulator (192 bytes).
type G1XYZZ struct{ X, Y, ZZ, ZZZ fp.Element }

// G2XYZZ is the device's G2 accumulator (384 bytes).
type G2XYZZ struct{ X, Y, ZZ, ZZZ curve.E2 }

// G1Infinity returns the Jacobian point at infinity.
func G1Infinity() curve.G1Jac {
	var p curve.G1Jac
	p.X.SetOne()
	p.Y.SetOne()
	return p
}

// G2Infinity returns the Jacobian point at infinity.
func G2Infinity() curve.G2Jac {
	var p curve.G2Jac
	p.X.SetOne()
	p.Y.SetOne()
	return p
}

// Jac converts p to Jacobian coordinates: Z = ZZ*ZZZ, X = X*ZZ*ZZZ^2,
// Y = Y*ZZ^3*ZZZ^2.
func (p *G1XYZZ) Jac() curve.G1Jac {
	if p.ZZ.IsZero() {
		return G1Infinity()
	}
	var r curve.G1Jac
	var zzz2, zz3 fp.Element
	zzz2.Square(&p.ZZZ)
	zz3.Square(&p.ZZ).Mul(&zz3, &p.ZZ)
	r.Z.Mul(&p.ZZ, &p.ZZZ)
	r.X.Mul(&p.X, &p.ZZ).Mul(&r.X, &zzz2)
	r.Y.Mul(&p.Y, &zz3).Mul(&r.Y, &zzz2)
	return r
}

// Jac converts p to Jacobian coordinates (see G1XYZZ.Jac).
func (p *G2XYZZ) Jac() curve.G2Jac {
	if p.ZZ.IsZero() {
		return G2Infinity()
	}
	var r curve.G2Jac
	var zzz2, zz3 curve.E2
	zzz2.Square(&p.ZZZ)
	zz3.Square(&p.ZZ).Mul(&zz3, &p.ZZ)
	r.Z.Mul(&p.ZZ, &p.ZZZ)
	r.X.Mul(&p.X, &p.ZZ).Mul(&r.X, &zzz2)
	r.Y.Mul(&p.Y, &zz3).Mul(&r.Y, &zzz2)
	return r
}

// CombineG1 returns sum_w 2^(c*w) * windows[w].
func CombineG1(windows []G1XYZZ, c int) curve.G1Jac {
	acc := G1Infinity()
	for w := len(windows) - 1; w >= 0; w-- {
		for i := 0; i < c; i++ {
			acc.DoubleAssign()
		}
		j := windows[w].Jac()
		acc.AddAssign(&j)
	}
	return acc
}

// CombineG2 returns sum_w 2^(c*w) * windows[w].
func CombineG2(windows []G2XYZZ, c int) curve.G2Jac {
	acc := G2Infinity()
	for w := len(windows) - 1; w >= 0; w-- {
		for i := 0; i < c; i++ {
			acc.DoubleAssign()
		}
		j := windows[w].Jac()
		acc.AddAssign(&j)
	}
	return acc
}

// SumG1 returns the sum of the given accumulators.
func SumG1(ps []G1XYZZ) curve.G1Jac {
	acc := G1Infinity()
	for i := range ps {
		j := ps[i].Jac()
		acc.AddAssign(&j)
	}
	return acc
}

// SumG2 returns the sum of the given accumulators.
func SumG2(ps []G2XYZZ) curve.G2Jac {
	acc := G2Infinity()
	for i := range ps {
		j := ps[i].Jac()
		acc.AddAssign(&j)
	}
	return acc
}
