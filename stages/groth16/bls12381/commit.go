package groth16

import (
	"errors"
	"fmt"
	"hash"
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/hash_to_field"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/constraint/solver"
	fcs "github.com/consensys/gnark/frontend/cs"
)

// gnark's commitments in Groth16 (BSB22, https://eprint.iacr.org/2022/1072),
// as gnark v0.14's prover makes them (backend/groth16/bls12-381/prove.go).
// A circuit that calls api.Commit, itself or through a gadget built on it
// (std/rangecheck, std/math/emulated, std/lookup/logderivlookup,
// std/hash/sha2...), has for each commitment i a list of private wires it
// commits to, the public inputs and earlier commitment wires it hashes,
// and a commitment wire, which the solver fills by calling the hint
// Bsb22CommitmentComputePlaceholder. The stages:
//
//   - synthesize answers that hint: the Pedersen commitment Cᵢ = Σ vⱼ·Basisⱼ
//     of the committed private values over commitment key i's bases (on
//     the partition's device, or the host: commitMSM), hashed with the
//     hashed inputs into the commitment wire's value;
//   - prep_msm leaves the committed private wires and the commitment
//     wires out of K (their bases are the commitment keys' and the
//     verifying key's), and builds the scalars of the proof of knowledge:
//     commitment i's values times cⁱ, c the hash of the commitment wires;
//   - gpu_compute runs that proof of knowledge as one more G1 MSM
//     (msm_pok) over the commitment keys' BasisExpSigma, concatenated;
//   - the epilogue puts the commitments and the folded proof of knowledge
//     into the proof, where gnark's verifier reads them.

// bsb22Hint is the ID of the hint whose value a commitment wire takes.
var bsb22Hint = solver.GetHintID(fcs.Bsb22CommitmentComputePlaceholder)

// pokDomain separates the hash of the commitment wires that folds the
// proofs of knowledge (gnark's prover and verifier use it).
const pokDomain = "G16-BSB22"

// commitPlan is what the stages use of a circuit's commitments, derived
// once per job from the constraint system.
type commitPlan struct {
	info constraint.Groth16Commitments
	// removed lists, ascending, the wires K leaves out: every
	// commitment's private committed wires and every commitment wire.
	removed []uint32
	// pokOff[i] is where commitment i's scalars start in the proof of
	// knowledge's vector; pokOff[len(info)] is its length.
	pokOff []int
	// gadgets names, per commitment, the gadgets that made its wires
	// (committers), computed for the first error that needs them.
	gadgets struct {
		once  sync.Once
		names []string
		sys   *cs.R1CS
	}
}

// count is the number of commitments.
func (p *commitPlan) count() int { return len(p.info) }

// newCommitPlan checks r1cs's commitments and returns their plan: the
// private committed wires of each commitment ascending and disjoint, its
// hashed wires public inputs or earlier commitment wires, the commitment
// wires ascending, all within the system's wires (gnark's setup and the
// stages index by them).
func newCommitPlan(circuit string, r1cs *cs.R1CS) (*commitPlan, error) {
	ci, ok := r1cs.CommitmentInfo.(constraint.Groth16Commitments)
	if !ok {
		return nil, fmt.Errorf("circuit %q: commitment info is %T, want groth16 commitments", circuit, r1cs.CommitmentInfo)
	}
	nbPublic := r1cs.GetNbPublicVariables()
	nbWires := r1cs.GetNbInternalVariables() + nbPublic + r1cs.GetNbSecretVariables()
	p := &commitPlan{info: ci, pokOff: make([]int, len(ci)+1)}
	p.gadgets.sys = r1cs
	bad := func(i int, format string, args ...any) error {
		return fmt.Errorf("circuit %q: commitment %d of %d: %s: %w", circuit, i, len(ci), fmt.Sprintf(format, args...), ErrMalformedCommitments)
	}
	for i, c := range ci {
		if c.CommitmentIndex < nbPublic || c.CommitmentIndex >= nbWires {
			return nil, bad(i, "commitment wire %d is not a private wire of the %d", c.CommitmentIndex, nbWires)
		}
		if i > 0 && c.CommitmentIndex <= ci[i-1].CommitmentIndex {
			return nil, bad(i, "commitment wire %d after %d, want them ascending", c.CommitmentIndex, ci[i-1].CommitmentIndex)
		}
		for j, w := range c.PrivateCommitted {
			switch {
			case w < nbPublic || w >= nbWires:
				return nil, bad(i, "committed wire %d is not a private wire of the %d", w, nbWires)
			case j > 0 && w <= c.PrivateCommitted[j-1]:
				return nil, bad(i, "committed wire %d after %d, want them ascending", w, c.PrivateCommitted[j-1])
			}
		}
		if c.NbPublicCommitted < 0 || c.NbPublicCommitted > len(c.PublicAndCommitmentCommitted) {
			return nil, bad(i, "%d public committed wires of %d", c.NbPublicCommitted, len(c.PublicAndCommitmentCommitted))
		}
		for j, w := range c.PublicAndCommitmentCommitted {
			if j > 0 && w <= c.PublicAndCommitmentCommitted[j-1] {
				return nil, bad(i, "hashed wire %d after %d, want them ascending", w, c.PublicAndCommitmentCommitted[j-1])
			}
			if j < c.NbPublicCommitted && (w < 1 || w >= nbPublic) {
				return nil, bad(i, "hashed public wire %d is not a public input (1 to %d)", w, nbPublic-1)
			}
			if j >= c.NbPublicCommitted && !slices.Contains(ci[:i].CommitmentIndexes(), w) {
				return nil, bad(i, "hashed wire %d is not an earlier commitment's wire", w)
			}
		}
		p.pokOff[i+1] = p.pokOff[i] + len(c.PrivateCommitted)
	}
	if len(ci) == 0 {
		return p, nil
	}
	// The lists merged (each is ascending): a wire twice is one committed
	// by two commitments, or a commitment wire committed.
	lists := append(ci.GetPrivateCommitted(), ci.CommitmentIndexes())
	p.removed = make([]uint32, 0, p.pokOff[len(ci)]+len(ci))
	for {
		least := -1
		for k, l := range lists {
			if len(l) > 0 && (least < 0 || l[0] < lists[least][0]) {
				least = k
			}
		}
		if least < 0 {
			break
		}
		w := lists[least][0]
		lists[least] = lists[least][1:]
		if n := len(p.removed); n > 0 && p.removed[n-1] == uint32(w) {
			var by []string
			for i, c := range ci {
				if slices.Contains(c.PrivateCommitted, w) {
					by = append(by, fmt.Sprintf("committed by commitment %d", i))
				}
				if c.CommitmentIndex == w {
					by = append(by, fmt.Sprintf("commitment %d's wire", i))
				}
			}
			return nil, fmt.Errorf("circuit %q: wire %d is %s: %w", circuit, w, strings.Join(by, " and "), ErrMalformedCommitments)
		}
		p.removed = append(p.removed, uint32(w))
	}
	return p, nil
}

// ErrMalformedCommitments is wrapped by the error refusing a constraint
// system whose commitment info gnark's builder could not have written
// (wires out of range, out of order or committed twice): a corrupt or
// hand-made system, on which gnark's setup and the stages would index out
// of bounds.
var ErrMalformedCommitments = errors.New("malformed commitment info")

// about names commitment i for an error: "commitment 0 of 1 (api.Commit
// by std/rangecheck, std/math/emulated)".
func (p *commitPlan) about(i int) string {
	p.gadgets.once.Do(func() { p.gadgets.names = committers(p.gadgets.sys, p.info) })
	what := fmt.Sprintf("commitment %d of %d", i, len(p.info))
	if i >= 0 && i < len(p.gadgets.names) && p.gadgets.names[i] != "" {
		what += " (api.Commit by " + p.gadgets.names[i] + ")"
	}
	return what
}

// committers names, for each commitment, the gadgets whose hints solved
// the private wires it commits to: the package of each hint function
// (std/rangecheck, std/math/emulated...), and std/lookup/logderivlookup
// for the wires of a table lookup. A wire a constraint solved names no
// gadget; "" when none does.
func committers(sys *cs.R1CS, ci constraint.Groth16Commitments) []string {
	owner := map[uint32]int{}
	for i, c := range ci {
		for _, w := range c.PrivateCommitted {
			owner[uint32(w)] = i
		}
	}
	sets := make([]map[string]bool, len(ci))
	for i := range sets {
		sets[i] = map[string]bool{}
	}
	mark := func(from, to uint32, name string) {
		for w := from; w < to; w++ {
			if i, ok := owner[w]; ok {
				sets[i][name] = true
			}
		}
	}
	var hm constraint.HintMapping
	for k := range sys.Instructions {
		pi := sys.Instructions[k]
		if int(pi.BlueprintID) >= len(sys.Blueprints) {
			continue
		}
		switch b := sys.Blueprints[pi.BlueprintID].(type) {
		case *constraint.BlueprintGenericHint:
			b.DecompressHint(&hm, sys.GetInstruction(k))
			if h := solver.GetRegisteredHint(hm.HintID); h != nil {
				mark(hm.OutputRange.Start, hm.OutputRange.End, hintPackage(h))
			}
		case *constraint.BlueprintLookupHint[constraint.U64]:
			in := sys.GetInstruction(k)
			mark(in.WireOffset, in.WireOffset+uint32(b.NbOutputs(in)), "std/lookup/logderivlookup")
		}
	}
	out := make([]string, len(ci))
	for i, s := range sets {
		names := make([]string, 0, len(s))
		for n := range s {
			names = append(names, n)
		}
		sort.Strings(names)
		out[i] = strings.Join(names, ", ")
	}
	return out
}

// hintPackage is the package of a hint function, shortened for gnark's
// own ("std/rangecheck" for github.com/consensys/gnark/std/rangecheck).
func hintPackage(h solver.Hint) string {
	name := solver.GetHintName(h)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		if j := strings.Index(name[i:], "."); j >= 0 {
			name = name[:i+j]
		}
	}
	return strings.TrimPrefix(name, "github.com/consensys/gnark/")
}

// committer computes commitment i's Pedersen commitment of values over
// its key's bases.
type committer func(i int, values []fr.Element) (curve.G1Affine, error)

// commitHint is the solver's Bsb22CommitmentComputePlaceholder as gnark's
// prover overrides it: commitment i's committed private values go to
// commit, whose point is kept in points[i] (the hint of each commitment
// runs once), and hashed with the values of the wires the commitment
// hashes (public inputs, earlier commitments) into the commitment wire's
// value. Its inputs are i, the hashed values, then the committed ones.
func (j *Job) commitHint(commit committer, points []curve.G1Affine) solver.Hint {
	return func(_ *big.Int, in, out []*big.Int) error {
		if len(in) == 0 || len(out) != 1 || !in[0].IsInt64() || in[0].Int64() < 0 || in[0].Int64() >= int64(j.commit.count()) {
			return fmt.Errorf("commitment hint called with %d inputs and %d outputs for %d commitments", len(in), len(out), j.commit.count())
		}
		i := int(in[0].Int64())
		c := j.commit.info[i]
		hashed, committed := in[1:], []*big.Int(nil)
		if len(hashed) >= len(c.PublicAndCommitmentCommitted) {
			hashed, committed = hashed[:len(c.PublicAndCommitmentCommitted)], hashed[len(c.PublicAndCommitmentCommitted):]
		}
		if len(committed) != len(c.PrivateCommitted) || len(committed) != len(j.PK.CommitmentKeys[i].Basis) {
			return fmt.Errorf("%s: the hint got %d inputs, want %d hashed and %d committed (%d bases in the proving key)",
				j.commit.about(i), len(in)-1, len(c.PublicAndCommitmentCommitted), len(c.PrivateCommitted), len(j.PK.CommitmentKeys[i].Basis))
		}
		values := make([]fr.Element, len(committed))
		for k, v := range committed {
			values[k].SetBigInt(v)
		}
		p, err := commit(i, values)
		if err != nil {
			return fmt.Errorf("%s: pedersen commitment: %w", j.commit.about(i), err)
		}
		points[i] = p
		h := j.commitmentHash()
		h.Write(constraint.SerializeCommitment(p.Marshal(), hashed, (fr.Bits-1)/8+1))
		sum := h.Sum(nil)
		var res fr.Element
		res.SetBytes(sum[:min(fr.Bytes, h.Size())])
		res.BigInt(out[0])
		return nil
	}
}

// commitmentHash is a fresh hash of a commitment to its wire's value:
// the job's CommitmentHash, else gnark's default (RFC 9380 hash to field
// with the commitment domain).
func (j *Job) commitmentHash() hash.Hash {
	if j.CommitmentHash != nil {
		return j.CommitmentHash()
	}
	return hash_to_field.New([]byte(constraint.CommitmentDst))
}

// pokChallenge is the coefficient folding the commitments' proofs of
// knowledge: the hash of the commitment wires' values.
func (j *Job) pokChallenge(wires []fr.Element) (fr.Element, error) {
	buf := make([]byte, 0, fr.Bytes*j.commit.count())
	for _, c := range j.commit.info {
		b := wires[c.CommitmentIndex].Bytes()
		buf = append(buf, b[:]...)
	}
	ch, err := fr.Hash(buf, []byte(pokDomain), 1)
	if err != nil {
		return fr.Element{}, fmt.Errorf("proof of knowledge challenge: %w", err)
	}
	return ch[0], nil
}

// pokScalars returns the scalars of the folded proof of knowledge, in
// Montgomery form: commitment i's committed values times cⁱ, c the
// challenge, aligned with the commitment keys' BasisExpSigma
// concatenated (pokBases).
func (j *Job) pokScalars(wires []fr.Element) ([]fr.Element, error) {
	if j.commit.count() == 0 {
		return nil, nil
	}
	c, err := j.pokChallenge(wires)
	if err != nil {
		return nil, err
	}
	out := make([]fr.Element, j.commit.pokOff[j.commit.count()])
	ci := fr.One()
	for i, cm := range j.commit.info {
		dst := out[j.commit.pokOff[i]:j.commit.pokOff[i+1]]
		for k, w := range cm.PrivateCommitted {
			dst[k].Mul(&wires[w], &ci)
		}
		ci.Mul(&ci, &c)
	}
	return out, nil
}

// pokBases is the commitment keys' BasisExpSigma, concatenated: the
// bases of the folded proof of knowledge (nil without commitments). It is
// built once per job.
func (j *Job) pokBases() []curve.G1Affine {
	j.pok.once.Do(func() {
		if len(j.PK.CommitmentKeys) == 0 {
			return
		}
		if len(j.PK.CommitmentKeys) == 1 {
			j.pok.bases = j.PK.CommitmentKeys[0].BasisExpSigma
			return
		}
		for _, k := range j.PK.CommitmentKeys {
			j.pok.bases = append(j.pok.bases, k.BasisExpSigma...)
		}
	})
	return j.pok.bases
}
