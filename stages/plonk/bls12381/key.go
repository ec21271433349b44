package plonk

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/scs"

	gsolve "github.com/prooflane/prooflane/internal/solve"
)

// MaxSize bounds a key's domain (constraints plus public inputs, rounded
// up to a power of two): 2^24, checked before anything of that size is
// allocated.
const MaxSize = 1 << 24

// ErrUnsupported is wrapped by the error refusing a constraint system the
// stages cannot prove; the message names what in it is not supported.
var ErrUnsupported = errors.New("not supported by the plonk stages")

// Key is a circuit's constraint system with its PLONK keys, and what the
// stages derive from them once (the trace in canonical form, the domains,
// the vectors of the quotient's coset).
type Key struct {
	// Circuit names the circuit in errors ("chain", "sha256"...).
	Circuit string
	SPR     *cs.SparseR1CS
	PK      *gplonk.ProvingKey
	VK      *gplonk.VerifyingKey
	// Name identifies the key's SRS on a device (its bases are resident
	// under Name+"/g1" and Name+"/lagrange"), derived from the verifying
	// key's bytes so two setups never share one.
	Name string

	n                  int         // the small domain's cardinality
	domain0, domain1   *fft.Domain // the small domain and the quotient's
	ql, qr, qm, qo, qk []fr.Element
	s1, s2, s3         []fr.Element // canonical, n each (qk incomplete)
	qkLagrange         []fr.Element // qk in Lagrange form, public rows zero
	perm               []int64
	omegaPow           []fr.Element // ω^i, i < n
	lOne               []fr.Element // L₁'s canonical coefficients: 1/n, n of them
	zhInvPoly          []fr.Element // 1/(y-1) on y = xⁿ of domain1's coset, a polynomial of degree ρ-1

	// BSB22 commitments (api.Commit): each one's committed rows and
	// commitment row, the rows its committed polynomial is not zero on
	// (bsb22Rows, for the sparse MSM of solve), its selector Qcp in
	// canonical form (n each).
	commitments constraint.PlonkCommitments
	bsb22Rows   [][]int
	qcp         [][]fr.Element
	// lookups: the system has lookup blueprints, which keep state while
	// solving (solveSystem).
	lookups bool
}

// CheckSupported refuses a constraint system the stages cannot prove: a
// solver blueprint that keeps state while solving other than
// std/lookup/logderivlookup's (solveSystem), commitment info that is not
// PLONK's (a system not compiled with scs.NewBuilder), or BSB22 commitments (api.Commit, which std/rangecheck,
// std/lookup/logderivlookup, std/math/emulated and std/hash/sha2 call)
// whose rows are not where gnark's builder puts them: every committed row
// and the commitment row within the constraints, the committed rows
// increasing, none of them the commitment row or the last constraint
// (gnark's prover draws the committed polynomial's values at those two
// rows at random, its blinding).
func CheckSupported(circuit string, spr *cs.SparseR1CS) error {
	ci, ok := spr.CommitmentInfo.(constraint.PlonkCommitments)
	if !ok {
		return fmt.Errorf("circuit %q: commitment info of type %T (a constraint system not compiled with scs.NewBuilder): %w", circuit, spr.CommitmentInfo, ErrUnsupported)
	}
	for _, b := range spr.Blueprints {
		if _, stateful := b.(constraint.BlueprintStateful[constraint.U64]); stateful {
			if _, lookup := b.(*constraint.BlueprintLookupHint[constraint.U64]); !lookup {
				return fmt.Errorf("circuit %q: solver blueprint %T keeps state while solving, and only std/lookup/logderivlookup's can be given to each partition's solve: %w", circuit, b, ErrUnsupported)
			}
		}
	}
	nb := spr.GetNbConstraints()
	for i, c := range ci {
		where := fmt.Sprintf("circuit %q: BSB22 commitment %d of %d (api.Commit)", circuit, i, len(ci))
		if c.CommitmentIndex < 0 || c.CommitmentIndex >= nb {
			return fmt.Errorf("%s: its commitment row %d is outside the %d constraints: %w", where, c.CommitmentIndex, nb, ErrUnsupported)
		}
		for j, row := range c.Committed {
			switch {
			case row < 0 || row >= nb:
				return fmt.Errorf("%s: committed row %d is outside the %d constraints: %w", where, row, nb, ErrUnsupported)
			case j > 0 && row <= c.Committed[j-1]:
				return fmt.Errorf("%s: committed rows not increasing (%d after %d): %w", where, row, c.Committed[j-1], ErrUnsupported)
			case row == c.CommitmentIndex || row == nb-1:
				return fmt.Errorf("%s: committed row %d is the commitment row or the last constraint, whose values the prover draws at random: %w", where, row, ErrUnsupported)
			}
		}
	}
	return nil
}

// CompileCircuit compiles c to a BLS12-381 SparseR1CS (its BSB22
// commitments included), refusing one CheckSupported refuses.
func CompileCircuit(name string, c frontend.Circuit) (*cs.SparseR1CS, error) {
	ccs, err := frontend.Compile(ecc.BLS12_381.ScalarField(), scs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("compile circuit %q for plonk: %w", name, err)
	}
	spr, ok := ccs.(*cs.SparseR1CS)
	if !ok {
		return nil, fmt.Errorf("compile circuit %q for plonk: got %T, want a bls12-381 SparseR1CS", name, ccs)
	}
	if err := CheckSupported(name, spr); err != nil {
		return nil, err
	}
	return spr, nil
}

// domainSize is the size of spr's small domain: its constraints and public
// inputs (one placeholder row each), rounded up to a power of two.
func domainSize(spr *cs.SparseR1CS) uint64 {
	return ecc.NextPowerOfTwo(uint64(spr.GetNbConstraints() + len(spr.Public)))
}

// UnsafeSetup runs gnark's PLONK setup on an SRS of a toxic value drawn
// at random and known while it runs (for tests, benchmarks and demos, not
// for production; SetupSRS takes a ceremony's). It is the SRS gnark's
// test/unsafekzg makes, drawn here rather than there because unsafekzg
// keeps every SRS it makes in a process-wide map (one per toxic value, or
// one per size reused by every setup of the process).
//
// Cancelling ctx stops it between its phases (the SRS, its Lagrange form,
// gnark's setup), returning ctx's error and dropping what it made.
func UnsafeSetup(ctx context.Context, circuit string, spr *cs.SparseR1CS) (*Key, error) {
	if err := checkDomain(circuit, spr); err != nil {
		return nil, err
	}
	canonical, lagrange, err := unsafeSRS(ctx, domainSize(spr))
	if err != nil {
		return nil, fmt.Errorf("circuit %q: kzg srs: %w", circuit, err)
	}
	return setup(ctx, circuit, spr, canonical, lagrange)
}

// unsafeSRS returns an SRS of n+3 points of a random τ and its Lagrange
// form on the domain of n: [Lᵢ(τ)]₁ with Lᵢ(τ) = (τⁿ-1)/n · ωⁱ/(τ-ωⁱ).
func unsafeSRS(ctx context.Context, n uint64) (canonical, lagrange *kzg.SRS, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var tau fr.Element
	if _, err := tau.SetRandom(); err != nil {
		return nil, nil, err
	}
	if canonical, err = kzg.NewSRS(n+3, tau.BigInt(new(big.Int))); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	d := fft.NewDomain(n, fft.WithoutPrecompute())
	den := make([]fr.Element, n)
	pow := make([]fr.Element, n)
	fft.BuildExpTable(d.Generator, pow)
	for i := range den {
		den[i].Sub(&tau, &pow[i])
	}
	inv := fr.BatchInvert(den)
	var c fr.Element
	one := fr.One()
	c.Exp(tau, new(big.Int).SetUint64(n)).Sub(&c, &one).Mul(&c, &d.CardinalityInv)
	for i := range inv {
		inv[i].Mul(&inv[i], &pow[i]).Mul(&inv[i], &c)
	}
	_, _, g1, _ := curve.Generators()
	lag := curve.BatchScalarMultiplicationG1(&g1, inv)
	return canonical, &kzg.SRS{Pk: kzg.ProvingKey{G1: lag}, Vk: canonical.Vk}, nil
}

// SetupSRS runs gnark's PLONK setup on a canonical SRS (a ceremony's,
// read with ReadSRS), computing its Lagrange form for the circuit's
// domain. Cancelling ctx stops it between its phases, as UnsafeSetup.
func SetupSRS(ctx context.Context, circuit string, spr *cs.SparseR1CS, srs *kzg.SRS) (*Key, error) {
	if err := checkDomain(circuit, spr); err != nil {
		return nil, err
	}
	n := domainSize(spr)
	if uint64(len(srs.Pk.G1)) < n+3 {
		return nil, fmt.Errorf("circuit %q: the kzg srs has %d G1 points, the circuit's domain of %d needs %d", circuit, len(srs.Pk.G1), n, n+3)
	}
	lag, err := kzg.ToLagrangeG1(srs.Pk.G1[:n])
	if err != nil {
		return nil, fmt.Errorf("circuit %q: lagrange form of the srs: %w", circuit, err)
	}
	canonical := &kzg.SRS{Pk: kzg.ProvingKey{G1: srs.Pk.G1[:n+3]}, Vk: srs.Vk}
	return setup(ctx, circuit, spr, canonical, &kzg.SRS{Pk: kzg.ProvingKey{G1: lag}, Vk: srs.Vk})
}

func checkDomain(circuit string, spr *cs.SparseR1CS) error {
	if err := CheckSupported(circuit, spr); err != nil {
		return err
	}
	if n := domainSize(spr); n > MaxSize {
		return fmt.Errorf("circuit %q: domain of %d rows, above the limit of %d (MaxSize)", circuit, n, MaxSize)
	}
	return nil
}

func setup(ctx context.Context, circuit string, spr *cs.SparseR1CS, canonical, lagrange *kzg.SRS) (*Key, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("plonk setup of circuit %q stopped: %w", circuit, err)
	}
	pk, vk, err := gplonk.Setup(spr, *canonical, *lagrange)
	if err != nil {
		return nil, fmt.Errorf("plonk setup of circuit %q: %w", circuit, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("plonk setup of circuit %q stopped: %w", circuit, err)
	}
	return NewKey(circuit, spr, pk, vk)
}

// NewKey checks that pk and vk were set up for spr and derives what the
// stages need from them.
func NewKey(circuit string, spr *cs.SparseR1CS, pk *gplonk.ProvingKey, vk *gplonk.VerifyingKey) (*Key, error) {
	if spr == nil || pk == nil || vk == nil || pk.Vk == nil {
		return nil, fmt.Errorf("plonk key %q: missing constraint system, proving key or verifying key", circuit)
	}
	if err := checkDomain(circuit, spr); err != nil {
		return nil, err
	}
	n := domainSize(spr)
	switch {
	case n < 2:
		return nil, fmt.Errorf("circuit %q: %d rows; plonk needs at least 2", circuit, spr.GetNbConstraints()+len(spr.Public))
	case vk.Size != n || pk.Vk.Size != n:
		return nil, fmt.Errorf("circuit %q: the keys are for a domain of %d, the constraint system's is %d", circuit, vk.Size, n)
	case vk.NbPublicVariables != uint64(len(spr.Public)):
		return nil, fmt.Errorf("circuit %q: the verifying key has %d public inputs, the constraint system %d", circuit, vk.NbPublicVariables, len(spr.Public))
	case len(pk.Kzg.G1) < int(n)+3 || len(pk.KzgLagrange.G1) != int(n):
		return nil, fmt.Errorf("circuit %q: the proving key's srs has %d canonical and %d lagrange points, want %d and %d", circuit, len(pk.Kzg.G1), len(pk.KzgLagrange.G1), n+3, n)
	case !vk.S[0].Equal(&pk.Vk.S[0]) || !vk.Ql.Equal(&pk.Vk.Ql):
		return nil, fmt.Errorf("circuit %q: the proving and verifying keys come from different setups", circuit)
	}
	if err := checkCommitments(circuit, spr, vk); err != nil {
		return nil, err
	}
	if err := checkCommitments(circuit, spr, pk.Vk); err != nil {
		return nil, err
	}
	name, err := keyName(circuit, vk)
	if err != nil {
		return nil, err
	}
	k := &Key{Circuit: circuit, SPR: spr, PK: pk, VK: vk, Name: name, n: int(n)}
	k.derive()
	return k, nil
}

// checkCommitments checks that vk has spr's BSB22 commitments: one
// selector commitment and commitment row each, the same rows.
func checkCommitments(circuit string, spr *cs.SparseR1CS, vk *gplonk.VerifyingKey) error {
	rows := spr.CommitmentInfo.CommitmentIndexes()
	if len(vk.Qcp) != len(rows) || len(vk.CommitmentConstraintIndexes) != len(rows) {
		return fmt.Errorf("circuit %q: the verifying key has %d BSB22 commitment selectors and %d commitment rows, the constraint system %d commitments (api.Commit)",
			circuit, len(vk.Qcp), len(vk.CommitmentConstraintIndexes), len(rows))
	}
	for i, r := range rows {
		if vk.CommitmentConstraintIndexes[i] != uint64(r) {
			return fmt.Errorf("circuit %q: the verifying key's BSB22 commitment %d is at row %d, the constraint system's at %d", circuit, i, vk.CommitmentConstraintIndexes[i], r)
		}
	}
	return nil
}

// solveSystem returns the constraint system one solve uses while other
// partitions solve the same one: a shallow copy with lookup blueprints of
// its own when the system has lookups (solve.OwnState; CheckSupported
// refuses any other blueprint with state), else the system itself.
func (k *Key) solveSystem() *cs.SparseR1CS {
	if !k.lookups {
		return k.SPR
	}
	sys := *k.SPR
	gsolve.OwnState(&sys.System)
	return &sys
}

// Commitments is the number of the constraint system's BSB22
// commitments (api.Commit), each one a commitment in the proof.
func (k *Key) Commitments() int { return len(k.commitments) }

// Constraints is the constraint system's number of constraints.
func (k *Key) Constraints() int { return k.SPR.GetNbConstraints() }

// DomainSize is the small domain's cardinality n.
func (k *Key) DomainSize() int { return k.n }

// derive computes the trace's canonical form and the quotient's vectors.
func (k *Key) derive() {
	sizeSystem := uint64(k.SPR.GetNbConstraints() + len(k.SPR.Public))
	k.domain0 = fft.NewDomain(sizeSystem)
	// gnark's quotient domain: 4n, 8n for the smallest systems (the
	// quotient's degree is 3n+5, which 4n points fix once n >= 8).
	if sizeSystem < 6 {
		k.domain1 = fft.NewDomain(8 * sizeSystem)
	} else {
		k.domain1 = fft.NewDomain(4 * sizeSystem)
	}
	tr := gplonk.NewTrace(k.SPR, k.domain0)
	k.qkLagrange = append([]fr.Element(nil), tr.Qk.Coefficients()...)
	k.perm = tr.S
	canonical := func(lagrange []fr.Element) []fr.Element {
		c := append([]fr.Element(nil), lagrange...)
		k.domain0.FFTInverse(c, fft.DIF)
		fft.BitReverse(c)
		return c
	}
	k.ql, k.qr, k.qm, k.qo = canonical(tr.Ql.Coefficients()), canonical(tr.Qr.Coefficients()), canonical(tr.Qm.Coefficients()), canonical(tr.Qo.Coefficients())
	k.qk = canonical(k.qkLagrange)
	k.s1, k.s2, k.s3 = canonical(tr.S1.Coefficients()), canonical(tr.S2.Coefficients()), canonical(tr.S3.Coefficients())
	for _, b := range k.SPR.Blueprints {
		if _, ok := b.(*constraint.BlueprintLookupHint[constraint.U64]); ok {
			k.lookups = true
		}
	}
	k.commitments = k.SPR.CommitmentInfo.(constraint.PlonkCommitments)
	k.qcp = make([][]fr.Element, len(tr.Qcp))
	k.bsb22Rows = make([][]int, len(k.commitments))
	offset, last := len(k.SPR.Public), len(k.SPR.Public)+k.SPR.GetNbConstraints()-1
	for i, c := range k.commitments {
		k.qcp[i] = canonical(tr.Qcp[i].Coefficients())
		rows := make([]int, 0, len(c.Committed)+2)
		for _, r := range c.Committed {
			rows = append(rows, offset+r)
		}
		// The two rows drawn at random (CheckSupported: neither is a
		// committed one), in increasing order with the rest.
		rows = append(rows, offset+c.CommitmentIndex)
		if offset+c.CommitmentIndex != last {
			rows = append(rows, last)
		}
		slices.Sort(rows)
		k.bsb22Rows[i] = rows
	}

	k.omegaPow = make([]fr.Element, k.n)
	fft.BuildExpTable(k.domain0.Generator, k.omegaPow)
	k.lOne = make([]fr.Element, k.n)
	for i := range k.lOne {
		k.lOne[i] = k.domain0.CardinalityInv
	}

	// On domain1's coset, x = g·ω_N^j and xⁿ = gⁿ·ω_ρ^(j mod ρ), ρ = N/n:
	// 1/(xⁿ-1) takes ρ values there, so it is a polynomial of degree ρ-1
	// in y = xⁿ: Σ aⱼ yʲ with aⱼ c^j = (1/ρ) Σₖ vₖ ω_ρ^(-jk), c = gⁿ,
	// vₖ = 1/(c·ω_ρᵏ - 1) (an inverse DFT of size ρ). The quotient stage
	// evaluates it on the device from xⁿ, which needs no upload.
	rho := int(k.domain1.Cardinality) / k.n
	var c, w fr.Element
	c.Exp(k.domain1.FrMultiplicativeGen, big.NewInt(int64(k.n)))
	w.Exp(k.domain1.Generator, big.NewInt(int64(k.n)))
	one := fr.One()
	v := make([]fr.Element, rho)
	acc := c
	for i := range v {
		v[i].Sub(&acc, &one)
		acc.Mul(&acc, &w)
	}
	v = fr.BatchInvert(v)
	var wInv, cInv, rhoInv fr.Element
	wInv.Inverse(&w)
	cInv.Inverse(&c)
	rhoInv.SetUint64(uint64(rho)).Inverse(&rhoInv)
	k.zhInvPoly = make([]fr.Element, rho)
	cj := fr.One() // c^-j
	for j := range k.zhInvPoly {
		var wj, t fr.Element // ω^-j, then ω^-jk
		wj.Exp(wInv, big.NewInt(int64(j)))
		t.SetOne()
		var sum fr.Element
		for kk := range v {
			var term fr.Element
			term.Mul(&v[kk], &t)
			sum.Add(&sum, &term)
			t.Mul(&t, &wj)
		}
		k.zhInvPoly[j].Mul(&sum, &rhoInv).Mul(&k.zhInvPoly[j], &cj)
		cj.Mul(&cj, &cInv)
	}
}
