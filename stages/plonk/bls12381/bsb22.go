package plonk

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/hash_to_field"
	"github.com/consensys/gnark/constraint/solver"
	fcs "github.com/consensys/gnark/frontend/cs"
)

// BSB22 commitments (gnark's api.Commit in a PLONK circuit; std/rangecheck,
// std/lookup/logderivlookup, std/math/emulated and std/hash/sha2 call it
// through std/multicommit). Commitment i commits to the values of its
// committed rows: a polynomial pi2ᵢ in Lagrange form, those values at
// their rows, random values at the commitment's row and at the last
// constraint's (its blinding: Qcpᵢ is zero there), zero elsewhere. The
// solver's placeholder hint (Bsb22CommitmentComputePlaceholder), which
// this file replaces as gnark's prover does, computes [pi2ᵢ] over the
// Lagrange SRS and returns its hash to the field, the commitment wire's
// value, which the rest of the circuit goes on solving with. The proof
// carries [pi2ᵢ]; the quotient adds Qcpᵢ·pi2ᵢ to the gate constraint, the
// linearised polynomial Qcpᵢ(ζ)·pi2ᵢ(X), and the batched opening opens
// every Qcpᵢ at ζ. (gnark v0.14, backend/plonk/bls12-381/prove.go:
// bsb22Hint, completeQk, computeNumerator, innerComputeLinearizedPoly,
// batchOpening.)

// bsb22HintID is the solver's ID of the placeholder hint.
var bsb22HintID = solver.GetHintID(fcs.Bsb22CommitmentComputePlaceholder)

// bsb22HashDomain is the domain separation tag of the commitments' hash to
// the field, gnark's default (backend.ProverConfig.HashToFieldFn).
var bsb22HashDomain = []byte("BSB22-Plonk")

// bsb22Hint is the solver's hint for one commitment of st's partition:
// ins are the commitment's index and its committed values, outs[0] the
// commitment's hash. Called by the solver, possibly at once for two
// commitments (each writes its own index only).
//
// The commitment is an MSM of the Lagrange SRS's points at the rows pi2ᵢ
// is not zero on, on the host: a sparse MSM of a few points a committed
// value, which the solver waits for (doc.go says why not on the device).
func (st *State) bsb22Hint(_ *big.Int, ins, outs []*big.Int) error {
	k := st.key
	if len(ins) == 0 || len(outs) != 1 || !ins[0].IsInt64() {
		return fmt.Errorf("bsb22 commitment hint: %d inputs and %d outputs, want the commitment's index and values, and one output", len(ins), len(outs))
	}
	i := int(ins[0].Int64())
	if i < 0 || i >= len(k.commitments) {
		return fmt.Errorf("bsb22 commitment hint: commitment %d of the circuit's %d", ins[0], len(k.commitments))
	}
	c := k.commitments[i]
	values := ins[1:]
	if len(values) != len(c.Committed) {
		return fmt.Errorf("bsb22 commitment %d (api.Commit): %d values for its %d committed rows", i, len(values), len(c.Committed))
	}
	offset := len(k.SPR.Public)
	pi2 := make([]fr.Element, k.n)
	for j, v := range values {
		pi2[offset+c.Committed[j]].SetBigInt(v)
	}
	for _, row := range []int{offset + c.CommitmentIndex, offset + k.SPR.GetNbConstraints() - 1} {
		if _, err := pi2[row].SetRandom(); err != nil {
			return fmt.Errorf("bsb22 commitment %d (api.Commit): blinding: %w", i, err)
		}
	}
	rows := k.bsb22Rows[i]
	bases := make([]curve.G1Affine, len(rows))
	scalars := make([]fr.Element, len(rows))
	for j, row := range rows {
		bases[j], scalars[j] = k.PK.KzgLagrange.G1[row], pi2[row]
	}
	digest := &st.proof.Bsb22Commitments[i]
	if _, err := digest.MultiExp(bases, scalars, ecc.MultiExpConfig{}); err != nil {
		return fmt.Errorf("bsb22 commitment %d (api.Commit): msm: %w", i, err)
	}
	h := hash_to_field.New(bsb22HashDomain)
	h.Write(digest.Marshal())
	sum := h.Sum(nil)
	st.bsb22Values[i].SetBytes(sum[:min(fr.Bytes, h.Size())])
	st.bsb22Values[i].BigInt(outs[0])
	st.pi2[i] = pi2
	return nil
}
