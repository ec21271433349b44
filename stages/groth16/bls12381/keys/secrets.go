package keys

import (
	"crypto/rand"
	"fmt"
	"math/big"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Secrets are the values a Groth16 setup makes its keys from (the "toxic
// waste"): the point τ the QAP is evaluated at, and α, β, γ, δ. Whoever
// knows them can forge proofs for the keys, so prooflane draws them from
// crypto/rand (RandomSecrets), keeps them in memory for the setup only
// and never writes, logs or prints them: Secrets formats as
// "keys.Secrets{redacted}" whatever the verb. Fixed secrets are for tests
// (the same secrets give the same key files, byte for byte).
//
// A circuit with commitments (api.Commit) has a Pedersen commitment key
// per commitment: bases that are the committed wires' K bases, those
// bases times a secret σᵢ for the proof of knowledge, and a verifying key
// of a G2 point G shared by every commitment and G·(−σᵢ).
type Secrets struct {
	Tau, Alpha, Beta, Gamma, Delta fr.Element
	// CommitmentG2 is the commitment keys' G2 point (not secret: the
	// verifying key holds it).
	CommitmentG2 curve.G2Affine
	// Sigmas are the commitment keys' σᵢ, one a commitment.
	Sigmas []fr.Element
}

// RandomSecrets draws fresh secrets for a circuit of commitments
// commitments from crypto/rand, each non-zero, in the order and the way
// gnark's own setup draws them (τ, α, β, γ, δ, the commitment keys' G2
// point, a σ a commitment).
func RandomSecrets(commitments int) (Secrets, error) {
	var s Secrets
	fail := func(err error) (Secrets, error) {
		return Secrets{}, fmt.Errorf("drawing the setup's secret values: %w", err)
	}
	for _, e := range []*fr.Element{&s.Tau, &s.Alpha, &s.Beta, &s.Gamma, &s.Delta} {
		for e.IsZero() {
			if _, err := e.SetRandom(); err != nil {
				return fail(err)
			}
		}
	}
	var err error
	if s.CommitmentG2, err = curve.RandomOnG2(); err != nil {
		return fail(err)
	}
	// σ in [1, r-1], as gnark-crypto's pedersen.Setup draws it.
	rMinusOne := new(big.Int).Sub(fr.Modulus(), big.NewInt(1))
	s.Sigmas = make([]fr.Element, commitments)
	for i := range s.Sigmas {
		v, err := rand.Int(rand.Reader, rMinusOne)
		if err != nil {
			return fail(err)
		}
		s.Sigmas[i].SetBigInt(v.Add(v, big.NewInt(1)))
	}
	return s, nil
}

// Format prints nothing of the values, whatever the verb (%v, %+v, %#v,
// %x...): a secret in a log line or an error would void the keys.
func (Secrets) Format(f fmt.State, _ rune) { fmt.Fprint(f, "keys.Secrets{redacted}") }

// check refuses secrets a setup of a circuit of commitments commitments
// cannot use: a zero value (γ and δ are inverted; a zero α, β or σ leaves
// the keys unsound), τ on the domain of n points (its Lagrange
// evaluations divide by τ - ωⁱ), or not a σ per commitment and a G2
// point for them.
func (s *Secrets) check(n uint64, commitments int) error {
	if len(s.Sigmas) != commitments {
		return fmt.Errorf("setup secrets hold %d commitment σ, the circuit has %d commitment(s)", len(s.Sigmas), commitments)
	}
	for i := range s.Sigmas {
		if s.Sigmas[i].IsZero() {
			return fmt.Errorf("setup secret sigma %d is zero", i)
		}
	}
	if commitments > 0 && (s.CommitmentG2.IsInfinity() || !s.CommitmentG2.IsInSubGroup()) {
		return fmt.Errorf("setup's commitment G2 point is not a point of G2's subgroup other than infinity")
	}
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
