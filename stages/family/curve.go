package family

import (
	"fmt"
	"strings"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
)

// DefaultCurve is the curve of a key, a job or a request that names none.
const DefaultCurve = ecc.BLS12_381

// Curves are the curves the shipped families serve, the default first.
var Curves = []ecc.ID{ecc.BLS12_381, ecc.BN254}

// CurveOf is c, or DefaultCurve when c is ecc.UNKNOWN.
func CurveOf(c ecc.ID) ecc.ID {
	if c == ecc.UNKNOWN {
		return DefaultCurve
	}
	return c
}

// CurveName is c's name as users write it (--curve, the manifest):
// "bls12-381", "bn254".
func CurveName(c ecc.ID) string { return strings.ReplaceAll(CurveOf(c).String(), "_", "-") }

// ParseCurve is the curve of Curves named s (CurveName's spelling, any
// case; "" is DefaultCurve); an error lists the names.
func ParseCurve(s string) (ecc.ID, error) {
	if s == "" {
		return DefaultCurve, nil
	}
	names := make([]string, len(Curves))
	for i, c := range Curves {
		names[i] = CurveName(c)
		if strings.EqualFold(s, names[i]) {
			return c, nil
		}
	}
	return ecc.UNKNOWN, fmt.Errorf("unknown curve %q; have %s", s, strings.Join(names, ", "))
}

// SystemCurve is the curve of Curves whose scalar field ccs is over;
// ecc.UNKNOWN for none of them.
func SystemCurve(ccs constraint.ConstraintSystem) ecc.ID {
	for _, c := range Curves {
		if ccs.Field().Cmp(c.ScalarField()) == 0 {
			return c
		}
	}
	return ecc.UNKNOWN
}

// CurveSuffix is what the names of a key of curve c and of its files in
// a key cache add after the system's name and size: "" for DefaultCurve
// (whose names are what they were before a family served two curves),
// "-" and CurveName otherwise ("-bn254"), so that two curves' keys never
// share a name or a file.
func CurveSuffix(c ecc.ID) string {
	if CurveOf(c) == DefaultCurve {
		return ""
	}
	return "-" + CurveName(c)
}

// WrongCurve is the error of a request for curve want made to what
// serves curve have only (a family's prover of one curve).
func WrongCurve(what string, have, want ecc.ID) error {
	return fmt.Errorf("%s is %s, not %s", what, CurveName(have), CurveName(want))
}
