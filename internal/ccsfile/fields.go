package ccsfile

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/constraint"
	bls12381 "github.com/consensys/gnark/constraint/bls12-381"
	bn254 "github.com/consensys/gnark/constraint/bn254"
)

// field is a scalar field prooflane proves over: gnark's constraint
// system type for it and its modulus. Every check but the coefficient
// table's decoding is the same for all fields; another field is another
// entry of fields.
type field struct {
	curve   ecc.ID
	name    string
	modulus *big.Int
	// limbs is the modulus in 64-bit limbs, least significant first, as
	// gnark's coefficients (constraint.U64) hold an element.
	limbs constraint.U64
	// newSystem returns an empty system of kind, to decode into.
	newSystem func(Kind) constraint.ConstraintSystem
	// inner returns sys's field-independent part when sys is this
	// field's.
	inner func(sys constraint.ConstraintSystem) (*constraint.System, bool)
}

// bls12_381 is BLS12-381's scalar field.
var bls12_381 = newField(ecc.BLS12_381, "BLS12-381", blsfr.Modulus(),
	func(k Kind) constraint.ConstraintSystem {
		// A zero system: gnark's decoder fills what it decodes into,
		// and fails on the commitments of NewR1CS's.
		if k == SparseR1CS {
			return new(bls12381.SparseR1CS)
		}
		return new(bls12381.R1CS)
	},
	func(sys constraint.ConstraintSystem) (*constraint.System, bool) {
		s, ok := sys.(*bls12381.R1CS) // the same type as *bls12381.SparseR1CS
		if !ok || s == nil {
			return nil, false
		}
		return &s.System, true
	})

// bn254 is BN254's scalar field.
var bn254Field = newField(ecc.BN254, "BN254", bnfr.Modulus(),
	func(k Kind) constraint.ConstraintSystem {
		if k == SparseR1CS {
			return new(bn254.SparseR1CS)
		}
		return new(bn254.R1CS)
	},
	func(sys constraint.ConstraintSystem) (*constraint.System, bool) {
		s, ok := sys.(*bn254.R1CS) // the same type as *bn254.SparseR1CS
		if !ok || s == nil {
			return nil, false
		}
		return &s.System, true
	})

// fields are the fields Read decodes and CheckSolvable knows systems of.
var fields = []*field{bls12_381, bn254Field}

// fieldFor is curve's field.
func fieldFor(curve ecc.ID) (*field, error) {
	for _, f := range fields {
		if f.curve == curve {
			return f, nil
		}
	}
	return nil, fmt.Errorf("no constraint systems over %s's scalar field", curve)
}

func newField(curve ecc.ID, name string, modulus *big.Int, newSystem func(Kind) constraint.ConstraintSystem, inner func(constraint.ConstraintSystem) (*constraint.System, bool)) *field {
	f := &field{curve: curve, name: name, modulus: modulus, newSystem: newSystem, inner: inner}
	for i, w := range modulus.Bits() { // 64-bit words on the platforms gnark supports
		f.limbs[i] = uint64(w)
	}
	return f
}

// fieldOf returns the field of sys's concrete type and its
// field-independent part.
func fieldOf(sys constraint.ConstraintSystem) (*field, *constraint.System, error) {
	for _, f := range fields {
		if s, ok := f.inner(sys); ok {
			return f, s, nil
		}
	}
	return nil, nil, fmt.Errorf("a constraint system of type %T, over no field prooflane proves over", sys)
}

// checkScalarField checks the field the system declares is f.
func (f *field) checkScalarField(s *constraint.System) error {
	q, ok := new(big.Int).SetString(s.ScalarField, 16)
	if !ok || q.Cmp(f.modulus) != 0 {
		for _, g := range fields {
			if ok && q.Cmp(g.modulus) == 0 {
				return fmt.Errorf("a constraint system over %s's scalar field, not %s's", g.name, f.name)
			}
		}
		return fmt.Errorf("scalar field %q, want %s's (%s)", s.ScalarField, f.name, f.modulus.Text(16))
	}
	return nil
}

// checkCoefficients checks the coefficient table: the five that gnark's
// solver takes for their values without reading them (0, 1, 2, -1, -2,
// constraint.CoeffIdZero on) first, and every coefficient reduced (less
// than the modulus, in the field's Montgomery form): what the solver
// computes and what the proof commits to are then the same numbers.
func (f *field) checkCoefficients(sys constraint.ConstraintSystem) error {
	n := sys.GetNbCoefficients()
	standard := []int64{0, 1, 2, -1, -2}
	if n < len(standard) {
		return fmt.Errorf("%d coefficients, fewer than the %d every system starts with", n, len(standard))
	}
	for i, v := range standard {
		if c := sys.GetCoefficient(i); c != sys.FromInterface(v) {
			return fmt.Errorf("coefficient %d is %s, want %d", i, sys.String(c), v)
		}
	}
	for i := range n {
		if !f.reduced(sys.GetCoefficient(i)) {
			return fmt.Errorf("coefficient %d is not reduced (not below %s's modulus)", i, f.name)
		}
	}
	return nil
}

// reduced reports whether c is below the modulus.
func (f *field) reduced(c constraint.U64) bool {
	for i := len(c) - 1; i >= 0; i-- {
		if c[i] != f.limbs[i] {
			return c[i] < f.limbs[i]
		}
	}
	return false
}
