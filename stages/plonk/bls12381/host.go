package plonk

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/iop"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/constraint/solver"

	gsolve "github.com/prooflane/prooflane/internal/solve"
	"github.com/prooflane/prooflane/stages"
)

// The stages that run on the host.

// solve is plonk.solve: the SparseR1CS solved for the partition's witness
// (gnark's solveConstraints), with the blinding polynomials drawn and the
// transcript started.
type solve struct{}

func (solve) Run(ctx context.Context, in *stages.Input) (any, error) {
	j, err := jobOf(in)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := j.Key
	nc := len(k.commitments)
	st := &State{
		Partition: in.Partition, key: k, public: j.Public(in.Partition),
		proof: &gplonk.Proof{Bsb22Commitments: make([]kzg.Digest, nc)}, fs: newTranscript(),
		pi2: make([][]fr.Element, nc), bsb22Values: make([]fr.Element, nc),
	}
	opts := j.SolverOptions
	if nc > 0 {
		opts = append(slices.Clip(opts), solver.OverrideHint(bsb22HintID, st.bsb22Hint))
	}
	// Last: every hint's panic (a system from a file sets the constants
	// hints trust) is the solve's error, not the process's end.
	opts = append(slices.Clip(opts), gsolve.RecoverHints())
	res, err := k.solveSystem().Solve(j.Witnesses[in.Partition], opts...)
	if err != nil {
		return nil, fmt.Errorf("circuit %q partition %d: witness does not satisfy the circuit: %w", k.Circuit, in.Partition, err)
	}
	sol, ok := res.(*cs.SparseR1CSSolution)
	if !ok {
		return nil, fmt.Errorf("circuit %q partition %d: solver returned %T, want *cs.SparseR1CSSolution", k.Circuit, in.Partition, res)
	}
	if len(sol.L) != k.n || len(sol.R) != k.n || len(sol.O) != k.n {
		return nil, fmt.Errorf("circuit %q partition %d: solution of %d rows, the key's domain is %d", k.Circuit, in.Partition, len(sol.L), k.n)
	}
	for i := range st.pi2 {
		if st.pi2[i] == nil {
			return nil, fmt.Errorf("circuit %q partition %d: the solver made no BSB22 commitment %d (api.Commit): its hint was not called", k.Circuit, in.Partition, i)
		}
	}
	st.l, st.r, st.o = sol.L, sol.R, sol.O
	for _, b := range []struct {
		p *[]fr.Element
		d int
	}{{&st.bl, 1}, {&st.br, 1}, {&st.bo, 1}, {&st.bz, 2}} {
		if *b.p, err = randomPoly(b.d); err != nil {
			return nil, fmt.Errorf("circuit %q partition %d: blinding: %w", k.Circuit, in.Partition, err)
		}
	}
	return st, nil
}

// ratio is plonk.ratio: the permutation's accumulated ratio Z in Lagrange
// form (gnark's buildRatioCopyConstraint, before the commitment).
type ratio struct{}

func (ratio) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := stateOf(in, TypeLRO)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := st.key
	lagReg := iop.Form{Basis: iop.Lagrange, Layout: iop.Regular}
	l, r, o := st.l, st.r, st.o
	z, err := iop.BuildRatioCopyConstraint(
		[]*iop.Polynomial{iop.NewPolynomial(&l, lagReg), iop.NewPolynomial(&r, lagReg), iop.NewPolynomial(&o, lagReg)},
		k.perm, st.beta, st.gamma, lagReg, k.domain0)
	if err != nil {
		return nil, fmt.Errorf("circuit %q partition %d: permutation ratio: %w", k.Circuit, in.Partition, err)
	}
	st.z = z.Coefficients()
	return st, nil
}

// linearize is plonk.linearize: the blinded evaluations at ζ, Z's opening
// at ωζ (its claimed value and quotient, committed by plonk.open) and the
// linearised polynomial (gnark's openZ and computeLinearizedPolynomial).
type linearize struct{}

func (linearize) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := stateOf(in, TypeQuotient)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k, zeta := st.key, st.zeta
	st.lZeta = evalBlinded(st.lc, st.bl, zeta)
	st.rZeta = evalBlinded(st.rc, st.br, zeta)
	st.oZeta = evalBlinded(st.oc, st.bo, zeta)
	st.s1Zeta = eval(k.s1, zeta)
	st.s2Zeta = eval(k.s2, zeta)
	st.qcpZeta = make([]fr.Element, len(k.qcp))
	for i, q := range k.qcp {
		st.qcpZeta[i] = eval(q, zeta)
	}

	var zetaShifted fr.Element
	zetaShifted.Mul(&zeta, &k.VK.Generator)
	bz := blinded(st.zc, st.bz)
	zu := eval(bz, zetaShifted)
	st.proof.ZShiftedOpening.ClaimedValue = zu
	q := append([]fr.Element(nil), bz...)
	st.zOpenQuotient = divideByXMinusA(q, zu, zetaShifted)

	st.lin = st.linearized(bz, zu)
	return st, nil
}

// linearized computes the linearised polynomial in bz (Z blinded,
// canonical) and returns it:
//
//	α²L₁(ζ)Z(X)
//	+ α(l(ζ)+βs1(ζ)+γ)(r(ζ)+βs2(ζ)+γ)βZ(ωζ)·s3(X)
//	- α(l(ζ)+βζ+γ)(r(ζ)+βuζ+γ)(o(ζ)+βu²ζ+γ)·Z(X)
//	+ l(ζ)Ql(X) + l(ζ)r(ζ)Qm(X) + r(ζ)Qr(X) + o(ζ)Qo(X) + Qk(X)
//	+ Σᵢ Qcpᵢ(ζ)·pi2ᵢ(X)
//	- Z_H(ζ)(H₁(X) + ζⁿ⁺²H₂(X) + ζ²⁽ⁿ⁺²⁾H₃(X))
//
// with Qk without the public inputs (the verifier adds them), as gnark's
// innerComputeLinearizedPoly.
func (st *State) linearized(bz []fr.Element, zu fr.Element) []fr.Element {
	k := st.key
	alpha, beta, gamma, zeta := st.alpha, st.beta, st.gamma, st.zeta
	var rl, s1, s2, tmp fr.Element
	rl.Mul(&st.rZeta, &st.lZeta)

	s1.Mul(&st.s1Zeta, &beta).Add(&s1, &st.lZeta).Add(&s1, &gamma)
	tmp.Mul(&st.s2Zeta, &beta).Add(&tmp, &st.rZeta).Add(&tmp, &gamma)
	s1.Mul(&s1, &tmp).Mul(&s1, &zu).Mul(&s1, &beta).Mul(&s1, &alpha)

	var uzeta, uuzeta fr.Element
	uzeta.Mul(&zeta, &k.VK.CosetShift)
	uuzeta.Mul(&uzeta, &k.VK.CosetShift)
	s2.Mul(&beta, &zeta).Add(&s2, &st.lZeta).Add(&s2, &gamma)
	tmp.Mul(&beta, &uzeta).Add(&tmp, &st.rZeta).Add(&tmp, &gamma)
	s2.Mul(&s2, &tmp)
	tmp.Mul(&beta, &uuzeta).Add(&tmp, &st.oZeta).Add(&tmp, &gamma)
	s2.Mul(&s2, &tmp)
	s2.Neg(&s2).Mul(&s2, &alpha)

	var zhZeta, zetaNPlusTwo, aL1, den fr.Element
	one := fr.One()
	aL1.Exp(zeta, big.NewInt(int64(k.n)))
	zetaNPlusTwo.Mul(&aL1, &zeta).Mul(&zetaNPlusTwo, &zeta)
	aL1.Sub(&aL1, &one)
	zhZeta.Set(&aL1)
	den.Sub(&zeta, &one).Inverse(&den)
	aL1.Mul(&aL1, &den).Mul(&aL1, &alpha).Mul(&aL1, &alpha).Mul(&aL1, &k.domain0.CardinalityInv)

	n := k.n
	h1, h2, h3 := st.h[:n+2], st.h[n+2:2*(n+2)], st.h[2*(n+2):3*(n+2)]
	lZeta, rZeta, oZeta := st.lZeta, st.rZeta, st.oZeta
	parallel(len(bz), func(lo, hi int) {
		var t, t0 fr.Element
		for i := lo; i < hi; i++ {
			t.Mul(&bz[i], &s2)
			if i < n {
				t0.Mul(&k.s3[i], &s1)
				t.Add(&t, &t0)
				t0.Mul(&k.qm[i], &rl)
				t.Add(&t, &t0)
				t0.Mul(&k.ql[i], &lZeta)
				t.Add(&t, &t0)
				t0.Mul(&k.qr[i], &rZeta)
				t.Add(&t, &t0)
				t0.Mul(&k.qo[i], &oZeta)
				t.Add(&t, &t0)
				t.Add(&t, &k.qk[i])
				for j := range st.pi2c {
					t0.Mul(&st.pi2c[j][i], &st.qcpZeta[j])
					t.Add(&t, &t0)
				}
			}
			t0.Mul(&bz[i], &aL1)
			bz[i].Add(&t, &t0)
			if i < len(h3) {
				t.Mul(&h3[i], &zetaNPlusTwo).
					Add(&t, &h2[i]).
					Mul(&t, &zetaNPlusTwo).
					Add(&t, &h1[i]).
					Mul(&t, &zhZeta)
				bz[i].Sub(&bz[i], &t)
			}
		}
	})
	return bz
}

// fold is plonk.fold: the six polynomials opened at ζ, and the Qcp
// selectors of the BSB22 commitments, folded with the batched opening's
// challenge and divided by X-ζ (kzg.BatchOpenSinglePoint
// up to the commitment, which plonk.batch_open makes).
type fold struct{}

func (fold) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := stateOf(in, TypeOpened)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k, zeta := st.key, st.zeta
	polys := append([][]fr.Element{st.lin, blinded(st.lc, st.bl), blinded(st.rc, st.br), blinded(st.oc, st.bo), k.s1, k.s2}, k.qcp...)
	digests := append([]kzg.Digest{st.linDigest, st.proof.LRO[0], st.proof.LRO[1], st.proof.LRO[2], k.VK.S[0], k.VK.S[1]}, k.VK.Qcp...)
	claimed := append([]fr.Element{eval(st.lin, zeta), st.lZeta, st.rZeta, st.oZeta, st.s1Zeta, st.s2Zeta}, st.qcpZeta...)
	zu := st.proof.ZShiftedOpening.ClaimedValue.Marshal()
	gamma, err := foldingChallenge(newFoldingHash(), zeta, digests, claimed, zu)
	if err != nil {
		return nil, fmt.Errorf("circuit %q partition %d: folding challenge: %w", k.Circuit, in.Partition, err)
	}
	var foldedEval fr.Element
	foldedEval = claimed[len(claimed)-1]
	for i := len(claimed) - 2; i >= 0; i-- {
		foldedEval.Mul(&foldedEval, &gamma).Add(&foldedEval, &claimed[i])
	}
	folded := make([]fr.Element, len(st.lin))
	copy(folded, polys[0])
	gammas := make([]fr.Element, len(polys))
	gammas[0] = gamma
	for i := 1; i < len(polys); i++ {
		gammas[i].Mul(&gammas[i-1], &gamma)
	}
	parallel(len(folded), func(lo, hi int) {
		var t fr.Element
		for i := 1; i < len(polys); i++ {
			p := polys[i]
			for j := lo; j < min(hi, len(p)); j++ {
				t.Mul(&p[j], &gammas[i-1])
				folded[j].Add(&folded[j], &t)
			}
		}
	})
	st.proof.BatchedProof.ClaimedValues = claimed
	st.batchQuotient = divideByXMinusA(folded, foldedEval, zeta)
	return st, nil
}
