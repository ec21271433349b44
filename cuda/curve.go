package cuda

import "fmt"

// Curve is a curve the kernels are built for: one template source
// (cuda/csrc/curves.cuh) instantiated for each. Its value is api.h's
// pl_curve id.
type Curve int

const (
	// BLS12381 is BLS12-381 (gnark-crypto's ecc/bls12-381), what the
	// package's Stream and Device methods take.
	BLS12381 Curve = 0
	// BN254 is BN254 (gnark-crypto's ecc/bn254), through the values
	// BN254Fr, BN254G1 and BN254G2.
	BN254 Curve = 1
)

// Curves lists the curves the kernels are built for.
var Curves = []Curve{BLS12381, BN254}

func (c Curve) String() string {
	switch c {
	case BLS12381:
		return "bls12-381"
	case BN254:
		return "bn254"
	}
	return fmt.Sprintf("curve(%d)", int(c))
}

// ParseCurve returns the curve named s ("bls12-381" or "bn254", as
// String writes them).
func ParseCurve(s string) (Curve, error) {
	for _, c := range Curves {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("curve %q: want bls12-381 or bn254", s)
}
