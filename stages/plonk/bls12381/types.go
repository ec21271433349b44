package plonk

import (
	"fmt"

	"crypto/sha256"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	"hash"

	fiatshamir "github.com/consensys/gnark-crypto/fiat-shamir"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"

	"github.com/prooflane/prooflane/stages"
)

// State is one partition's proof in the making; each stage fills its part
// and hands it on.
type State struct {
	Partition int
	key       *Key
	public    fr.Vector

	proof *gplonk.Proof
	fs    *fiatshamir.Transcript

	// Lagrange form, n each (solve; z from ratio).
	l, r, o, z []fr.Element
	// blinding polynomials, canonical: bl, br, bo of degree 1, bz of 2.
	bl, br, bo, bz []fr.Element

	gamma, beta, alpha, zeta fr.Element

	// canonical form, n each (quotient), and h's 3(n+2) coefficients.
	lc, rc, oc, zc, h []fr.Element

	// BSB22 commitments, one each (bsb22.go): the committed polynomial in
	// Lagrange form (solve) and canonical (quotient), n each; the hash of
	// its commitment, the commitment wire's value (solve); Qcp(ζ)
	// (linearize).
	pi2, pi2c   [][]fr.Element
	bsb22Values []fr.Element
	qcpZeta     []fr.Element

	// linearize's: the blinded evaluations at ζ, s1(ζ), s2(ζ), the
	// linearised polynomial, the quotient of Z's opening at ωζ.
	lZeta, rZeta, oZeta, s1Zeta, s2Zeta fr.Element
	lin, zOpenQuotient                  []fr.Element
	linDigest                           kzg.Digest
	// fold's: the folded polynomials' quotient by X-ζ.
	batchQuotient []fr.Element
}

func stateOf(in *stages.Input, t stages.DataType) (*State, error) {
	s, err := stages.Get[*State](in, t)
	if err != nil {
		return nil, err
	}
	if s == nil || s.key == nil {
		return nil, fmt.Errorf("stage %q partition %d: input %q carries no proof state", in.Stage, in.Partition, t)
	}
	return s, nil
}

// newFoldingHash is the batched opening's hash, gnark's default
// (backend.ProverConfig.KZGFoldingHash).
func newFoldingHash() hash.Hash { return sha256.New() }
