package keys

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Secrets are the values a Groth16 setup makes its keys from (the "toxic
// waste"): the point τ the QAP is evaluated at, and α, β, γ, δ. Whoever
// knows them can forge proofs for the keys, so prooflane draws them from
// crypto/rand (RandomSecrets), keeps them in memory for the setup only
// and never writes, logs or prints them: Secrets formats as
// "keys.Secrets{redacted}" whatever the verb. Fixed secrets are for tests
// (the same secrets give the same key files, byte for byte).
type Secrets struct {
	Tau, Alpha, Beta, Gamma, Delta fr.Element
}

// RandomSecrets draws fresh secrets from crypto/rand, each non-zero, in
// the order and the way gnark's own setup draws them (τ, α, β, γ, δ).
func RandomSecrets() (Secrets, error) {
	var s Secrets
	for _, e := range []*fr.Element{&s.Tau, &s.Alpha, &s.Beta, &s.Gamma, &s.Delta} {
		for e.IsZero() {
			if _, err := e.SetRandom(); err != nil {
				return Secrets{}, fmt.Errorf("drawing the setup's secret values: %w", err)
			}
		}
	}
	return s, nil
}

// Format prints nothing of the values, whatever the verb (%v, %+v, %#v,
// %x...): a secret in a log line or an error would void the keys.
func (Secrets) Format(f fmt.State, _ rune) { fmt.Fprint(f, "keys.Secrets{redacted}") }

// check refuses secrets a setup cannot use: a zero value (γ and δ are
// inverted; a zero α or β leaves the keys unsound) or τ on the domain of
// n points (its Lagrange evaluations divide by τ - ωⁱ).
func (s *Secrets) check(n uint64) error {
	for _, v := range []struct {
		name string
		e    *fr.Element
	}{{"tau", &s.Tau}, {"alpha", &s.Alpha}, {"beta", &s.Beta}, {"gamma", &s.Gamma}, {"delta", &s.Delta}} {
		if v.e.IsZero() {
			return fmt.Errorf("setup secret %s is zero", v.name)
		}
	}
	var tn fr.Element
	tn.Exp(s.Tau, bigUint(n))
	if tn.IsOne() {
		return fmt.Errorf("setup secret tau is a root of unity of the domain of %d points", n)
	}
	return nil
}
