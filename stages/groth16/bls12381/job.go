package groth16

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/constraint/solver"

	"github.com/prooflane/prooflane/stages"
)

// Job is the payload of a Groth16 job: one circuit, its keys, and one full
// witness per partition. It is read-only once built and shared by every
// stage instance of the job.
type Job struct {
	// Circuit names the circuit in errors ("chain", "sha256"...).
	Circuit string
	R1CS    *cs.R1CS
	PK      *g16.ProvingKey
	VK      *g16.VerifyingKey
	// Witnesses holds partition p's full witness at index p.
	Witnesses []witness.Witness
	// BasesKey names the proving key's bases on the devices; jobs sharing
	// a key set and run on one backend share the resident bases. (The
	// backend is not the job's: the engine lends it to the stages.)
	BasesKey string
	// SolverOptions are passed to the R1CS solver (custom hints).
	SolverOptions []solver.Option
	// CommitmentHash makes the hash each commitment is hashed to a field
	// element with, in the proof and when the proof is verified (gnark's
	// backend.WithProverHashToFieldFunction and
	// WithVerifierHashToFieldFunction): sha3.NewLegacyKeccak256 for
	// gnark's Solidity verifier. nil is gnark's default, RFC 9380 hash to
	// field. The challenge folding the proofs of knowledge is gnark's
	// fixed hash either way.
	CommitmentHash func() hash.Hash

	nbPublic int
	// plan is prep_msm's, derived from PK on first use.
	plan struct {
		once sync.Once
		p    *prepPlan
	}
	// small is the R1CS's coefficients for synthesize's small-integer
	// solver, read on first use.
	small smallSystem
	// field is what synthesize's field solver reads of the R1CS
	// (fieldsolve.go).
	field fieldSystem
	// commit is the circuit's commitments (commit.go).
	commit *commitPlan
	// solveMu serializes the solves of a system with stateful blueprints
	// synthesize cannot copy (Job.solve).
	solveMu sync.Mutex
	// pok is pokBases', made on first use.
	pok struct {
		once  sync.Once
		bases []curve.G1Affine
	}
}

// Curve is the curve of the job's key (stages.Curved).
func (j *Job) Curve() ecc.ID { return Curve }

// NewJob checks that the keys belong to r1cs and that the circuit is one
// the stages can prove, and returns the job payload.
func NewJob(circuit string, r1cs *cs.R1CS, pk *g16.ProvingKey, vk *g16.VerifyingKey, witnesses []witness.Witness) (*Job, error) {
	if r1cs == nil || pk == nil || vk == nil {
		return nil, fmt.Errorf("groth16 job %q: missing r1cs, proving key or verifying key", circuit)
	}
	plan, err := newCommitPlan(circuit, r1cs)
	if err != nil {
		return nil, err
	}
	if err := CheckKeys(circuit, r1cs, pk, vk); err != nil {
		return nil, err
	}
	if len(witnesses) == 0 {
		return nil, fmt.Errorf("groth16 job %q: no witness", circuit)
	}
	for p, w := range witnesses {
		if w == nil {
			return nil, fmt.Errorf("groth16 job %q: partition %d has no witness", circuit, p)
		}
	}
	return &Job{
		Circuit:   circuit,
		R1CS:      r1cs,
		PK:        pk,
		VK:        vk,
		Witnesses: witnesses,
		BasesKey:  basesKey(circuit, pk),
		nbPublic:  r1cs.GetNbPublicVariables(),
		commit:    plan,
	}, nil
}

// SetSolverOptions sets the options passed to the solver (custom hints)
// before the job runs.
func (j *Job) SetSolverOptions(opts []solver.Option) { j.SolverOptions = opts }

// Partitions is the number of partitions the job holds a witness for; a
// runtime.Job with this payload and no Partitions runs that many.
func (j *Job) Partitions() int { return len(j.Witnesses) }

// basesKey names pk's bases on a device by content: the key's α, β and δ
// are fresh randomness of its setup, so two key sets never share a name,
// and two jobs of one key set share the resident bases. (A pointer would
// not do: a freed key's address can be reused by the next one while its
// bases are still resident on a GPU.)
func basesKey(circuit string, pk *g16.ProvingKey) string {
	h := sha256.New()
	for _, p := range []curve.G1Affine{pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta} {
		b := p.Bytes()
		h.Write(b[:])
	}
	return fmt.Sprintf("%s/%d/%x", circuit, pk.Domain.Cardinality, h.Sum(nil)[:12])
}

// CheckSupported refuses constraint systems the stages cannot prove:
// one that is not a Groth16 R1CS's, or whose commitment info (api.Commit,
// or a gadget built on it: std/rangecheck, std/math/emulated,
// std/lookup/logderivlookup, std/hash/sha2...) gnark's builder could not
// have written (ErrMalformedCommitments). Any number of commitments is
// proved.
func CheckSupported(circuit string, r1cs *cs.R1CS) error {
	_, err := newCommitPlan(circuit, r1cs)
	return err
}

// CheckKeys checks that pk and vk were set up for r1cs, whose commitment
// info CheckSupported accepted: the K bases leave out the committed
// private wires and the commitment wires, which the commitment keys and
// the verifying key hold.
func CheckKeys(circuit string, r1cs *cs.R1CS, pk *g16.ProvingKey, vk *g16.VerifyingKey) error {
	nbWires := r1cs.GetNbInternalVariables() + r1cs.GetNbPublicVariables() + r1cs.GetNbSecretVariables()
	ci, _ := r1cs.CommitmentInfo.(constraint.Groth16Commitments)
	nbCommitted := 0
	for _, c := range ci {
		nbCommitted += len(c.PrivateCommitted)
	}
	// The commitment wires are public to the verifier.
	nbPublic := r1cs.GetNbPublicVariables() + len(ci)
	if err := checkCommitmentKeys(circuit, ci, r1cs.GetNbPublicVariables(), pk, vk); err != nil {
		return err
	}
	switch {
	case len(pk.InfinityA) != nbWires || len(pk.InfinityB) != nbWires:
		return fmt.Errorf("circuit %q: proving key is for %d wires, the constraint system has %d", circuit, len(pk.InfinityA), nbWires)
	case len(pk.G1.A)+int(pk.NbInfinityA) != nbWires || len(pk.G1.B)+int(pk.NbInfinityB) != nbWires || len(pk.G2.B) != len(pk.G1.B) ||
		countTrue(pk.InfinityA) != len(pk.InfinityA)-len(pk.G1.A) || countTrue(pk.InfinityB) != len(pk.InfinityB)-len(pk.G1.B):
		// prep_msm keeps one scalar per wire whose flag is false: a flag
		// count other than the bases' would index past them.
		return fmt.Errorf("circuit %q: proving key's A/B bases do not match its infinity flags", circuit)
	case len(pk.G1.K) != nbWires-nbPublic-nbCommitted:
		return fmt.Errorf("circuit %q: proving key has %d K bases, want %d", circuit, len(pk.G1.K), nbWires-nbPublic-nbCommitted)
	case pk.Domain.Cardinality < uint64(r1cs.GetNbConstraints()) || len(pk.G1.Z) < int(pk.Domain.Cardinality)-1:
		return fmt.Errorf("circuit %q: proving key's domain (%d) does not fit %d constraints", circuit, pk.Domain.Cardinality, r1cs.GetNbConstraints())
	case len(vk.G1.K) != nbPublic:
		return fmt.Errorf("circuit %q: verifying key has %d public bases, want %d", circuit, len(vk.G1.K), nbPublic)
	case !vk.G1.Alpha.Equal(&pk.G1.Alpha) || !vk.G2.Beta.Equal(&pk.G2.Beta) || !vk.G2.Delta.Equal(&pk.G2.Delta):
		// Same shapes, another setup (two setups of one circuit raced on
		// a cache, or a key file copied from elsewhere): every proof would
		// fail to verify.
		return fmt.Errorf("circuit %q: %w", circuit, ErrKeysFromDifferentSetups)
	}
	return nil
}

// ErrKeysFromDifferentSetups is wrapped by CheckKeys when the proving and
// verifying keys fit the constraint system but come from two different
// setups (their α, β or δ differ): no proof made with the proving key
// would verify with the verifying key.
var ErrKeysFromDifferentSetups = errors.New("proving and verifying keys come from different setups (α, β or δ differ)")

// checkCommitmentKeys checks the keys' commitment parts against the
// system's commitments: a proving key per commitment with a base and a
// base·σ per committed wire, a verifying key per commitment sharing one
// G2 point (gnark's verifier batches their checks), and the lists of
// hashed wires the verifier reads.
func checkCommitmentKeys(circuit string, ci constraint.Groth16Commitments, nbPublic int, pk *g16.ProvingKey, vk *g16.VerifyingKey) error {
	if len(pk.CommitmentKeys) != len(ci) || len(vk.CommitmentKeys) != len(ci) {
		return fmt.Errorf("circuit %q: the constraint system has %d commitment(s), the proving key %d commitment key(s), the verifying key %d",
			circuit, len(ci), len(pk.CommitmentKeys), len(vk.CommitmentKeys))
	}
	for i, c := range ci {
		k := &pk.CommitmentKeys[i]
		if len(k.Basis) != len(c.PrivateCommitted) || len(k.BasisExpSigma) != len(c.PrivateCommitted) {
			return fmt.Errorf("circuit %q: commitment %d commits to %d wires, its proving key has %d bases and %d bases·σ",
				circuit, i, len(c.PrivateCommitted), len(k.Basis), len(k.BasisExpSigma))
		}
		if !vk.CommitmentKeys[i].G.Equal(&vk.CommitmentKeys[0].G) {
			return fmt.Errorf("circuit %q: commitment %d's verifying key has another G2 point than commitment 0's", circuit, i)
		}
	}
	want := ci.GetPublicAndCommitmentCommitted(ci.CommitmentIndexes(), nbPublic)
	if len(vk.PublicAndCommitmentCommitted) != len(want) {
		return fmt.Errorf("circuit %q: verifying key lists hashed inputs for %d commitment(s), want %d", circuit, len(vk.PublicAndCommitmentCommitted), len(want))
	}
	for i := range want {
		if !slices.Equal(vk.PublicAndCommitmentCommitted[i], want[i]) {
			return fmt.Errorf("circuit %q: verifying key's hashed inputs of commitment %d are %v, the constraint system's %v", circuit, i, vk.PublicAndCommitmentCommitted[i], want[i])
		}
	}
	return nil
}

func countTrue(flags []bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// job returns in's payload as a *Job and checks the partition.
func job(in *stages.Input) (*Job, error) {
	j, err := stages.JobAs[*Job](in)
	if err != nil {
		return nil, err
	}
	if j == nil || j.nbPublic == 0 {
		// A literal Job has no count of public wires (there is always at
		// least the constant one): prep_msm would misalign K, and an empty
		// BasesKey would share resident bases between key sets.
		return nil, fmt.Errorf("stage %q: the job payload was not built by groth16.NewJob, which checks the keys and names their resident bases; build it with NewJob (or keys.Set.NewJob)", in.Stage)
	}
	if in.Partition < 0 || in.Partition >= len(j.Witnesses) {
		return nil, fmt.Errorf("stage %q: partition %d out of the job's %d witnesses", in.Stage, in.Partition, len(j.Witnesses))
	}
	return j, nil
}
