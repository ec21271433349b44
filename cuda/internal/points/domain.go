package points

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// DomainWords returns the constants the device needs for domain d, in
// Montgomery form: omega, omega^-1, g, g^-1, 1/n and den = (g^n - 1)^-1,
// computed exactly as gnark's groth16 computeH does.
func DomainWords(d *fft.Domain) [6]fr.Element {
	var den, one fr.Element
	one.SetOne()
	den.Exp(d.FrMultiplicativeGen, big.NewInt(int64(d.Cardinality)))
	den.Sub(&den, &one).Inverse(&den)
	return [6]fr.Element{d.Generator, d.GeneratorInv, d.FrMultiplicativeGen, d.FrMultiplicativeGenInv, d.CardinalityInv, den}
}
