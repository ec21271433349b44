package plonk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	gnarkplonk "github.com/consensys/gnark/backend/plonk"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// keyName names a key by its circuit (with its curve's
// family.CurveSuffix), domain and verifying key's bytes.
func keyName(circuit string, vk *gplonk.VerifyingKey) (string, error) {
	var b bytes.Buffer
	if _, err := vk.WriteRawTo(&b); err != nil {
		return "", fmt.Errorf("plonk key %q: %w", circuit, err)
	}
	sum := sha256.Sum256(b.Bytes())
	return fmt.Sprintf("plonk/%s%s/%d/%s", circuit, family.CurveSuffix(Curve), vk.Size, hex.EncodeToString(sum[:12])), nil
}

// MaxSize bounds a key's size: a built-in circuit's PLONK constraints
// are a few times its size, and NewKey refuses a domain above MaxSize.
func (Family) MaxSize() int { return MaxSize }

// Layout: each partition's public inputs beside its proof, and the
// verifying key as vk.bin (gnark's serialization).
func (Family) Layout() family.Layout { return family.Layout{Public: true, VK: "vk.bin"} }

// Compile compiles c to a BLS12-381 SparseR1CS (CompileCircuit);
// another curve is refused.
func (Family) Compile(curve ecc.ID, name string, c frontend.Circuit) (constraint.ConstraintSystem, error) {
	if err := checkCurve(curve); err != nil {
		return nil, err
	}
	return CompileCircuit(name, c)
}

// checkCurve refuses a curve other than the family's.
func checkCurve(c ecc.ID) error {
	if family.CurveOf(c) != Curve {
		return family.WrongCurve("this plonk prover", Curve, c)
	}
	return nil
}

// ReadSystem reads a SparseR1CS file, refusing what the stages cannot
// prove.
func (Family) ReadSystem(ctx context.Context, curve ecc.ID, path string) (constraint.ConstraintSystem, error) {
	if err := checkCurve(curve); err != nil {
		return nil, err
	}
	spr, err := ReadSparseR1CS(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := CheckSupported(path, spr); err != nil {
		return nil, err
	}
	return spr, nil
}

// sprOf returns sys's SparseR1CS: its CCS, or a built-in circuit compiled.
func sprOf(sys family.System) (*cs.SparseR1CS, error) {
	if sys.CCS == nil {
		if family.IsCompiled(sys.Name) {
			return nil, fmt.Errorf("plonk %s: the key cache keeps no constraint system: give it (--ccs)", sys)
		}
		spr, _, err := Compile(sys.Name, sys.Size)
		return spr, err
	}
	spr, ok := sys.CCS.(*cs.SparseR1CS)
	if !ok {
		return nil, fmt.Errorf("constraint system %s is a %T, want a BLS12-381 SparseR1CS (compiled with scs.NewBuilder) for plonk", sys, sys.CCS)
	}
	if err := CheckSupported(sys.Name, spr); err != nil {
		return nil, err
	}
	return spr, nil
}

// check checks a system's size and, for a built-in circuit, its name.
func (Family) check(sys family.System) error {
	if sys.Size < 1 || sys.Size > MaxSize {
		return fmt.Errorf("plonk %s: size %d, want 1 to %d", sys, sys.Size, MaxSize)
	}
	if sys.CCS == nil && !family.IsCompiled(sys.Name) {
		if _, err := workloads.Lookup(sys.Name); err != nil {
			return err
		}
	}
	return nil
}

// Setup loads the key of req from the cache, or makes it with an unsafe
// SRS (always with req.Force) and saves it; cancelling ctx stops the
// setup between its phases (UnsafeSetup), writing nothing.
func (f Family) Setup(ctx context.Context, req family.KeyRequest, log io.Writer) (family.Key, error) {
	if err := f.check(req.System); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	sys := req.System
	spr, err := sprOf(sys)
	if err != nil {
		return nil, err
	}
	c := Cache{Dir: req.Dir}
	if !req.Force {
		k, err := c.LoadOrSetupSystem(ctx, sys.Name, sys.Size, spr, log)
		if err != nil {
			return nil, err
		}
		return newKey(k, sys, c), nil
	}
	fmt.Fprintf(log, "plonk setup (forced): %s into %s\n", sys, c.Path(sys.Name, sys.Size))
	k, err := UnsafeSetup(ctx, sys.Name, spr)
	if err != nil {
		return nil, err
	}
	if err := c.Save(k, sys.Size); err != nil {
		return nil, err
	}
	return newKey(k, sys, c), nil
}

// Load loads the key of req from the cache; ErrNotCached (which wraps
// family.ErrNotCached) when it is not there.
func (f Family) Load(ctx context.Context, req family.KeyRequest) (family.Key, error) {
	if err := f.check(req.System); err != nil {
		return nil, err
	}
	spr, err := sprOf(req.System)
	if err != nil {
		return nil, err
	}
	c := Cache{Dir: req.Dir}
	k, err := c.LoadSystem(ctx, req.System.Name, req.System.Size, spr)
	if err != nil {
		return nil, err
	}
	return newKey(k, req.System, c), nil
}

// ReadKeys reads the user's own proving and verifying key files (gnark's
// WriteTo or WriteRawTo) for sys, checked against its constraint system
// (NewKey: the domain, the selectors' and permutation's lengths) and each
// other.
func (f Family) ReadKeys(ctx context.Context, sys family.System, pkFile, vkFile string) (family.Key, error) {
	spr, err := sprOf(sys)
	if err != nil {
		return nil, err
	}
	vk, err := readVK(vkFile)
	if err != nil {
		return nil, err
	}
	pk, err := ReadUserPK(ctx, pkFile, domainSize(spr), len(spr.CommitmentInfo.CommitmentIndexes()))
	if err != nil {
		return nil, fmt.Errorf("--pk %s: %w", pkFile, err)
	}
	a, b := encodeVKRaw(vk), encodeVKRaw(pk.Vk)
	if !bytes.Equal(a, b) {
		return nil, fmt.Errorf("--pk %s and --vk %s: the proving key holds another verifying key (two setups, or two circuits)", pkFile, vkFile)
	}
	k, err := NewKey(sys.Name, spr, pk, vk)
	if err != nil {
		return nil, fmt.Errorf("--pk %s: %w", pkFile, err)
	}
	fk := newKey(k, sys, Cache{})
	fk.files = []string{pkFile, vkFile}
	fk.vk.from = vkFile
	return fk, nil
}

// maxVKFile bounds a verifying key file verify --vk reads (one without
// commitments is about 48 KiB; a BSB22 commitment adds 56 bytes).
const maxVKFile = 1 << 20

// VerifyingKey returns the verifying key of file when it is named, else
// the one in the cache's key of req (a built-in circuit is compiled for
// its domain; a compiled system's is read from the key file).
func (f Family) VerifyingKey(ctx context.Context, req family.KeyRequest, file string, _ int) (family.VerifyingKey, error) {
	if file != "" {
		vk, err := readVK(file)
		if err != nil {
			return nil, err
		}
		return newVerifyingKey(vk, file)
	}
	if err := f.check(req.System); err != nil {
		return nil, err
	}
	c := Cache{Dir: req.Dir}
	vk, err := c.LoadVK(ctx, req.System.Name, req.System.Size)
	if err != nil {
		return nil, err
	}
	return newVerifyingKey(vk, c.Path(req.System.Name, req.System.Size))
}

func readVK(path string) (*gplonk.VerifyingKey, error) {
	data, err := regfile.ReadFile(path, maxVKFile)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("verifying key %q: over the limit of %d bytes", path, maxVKFile)
	}
	if err != nil {
		return nil, fmt.Errorf("verifying key %q: %w", path, err)
	}
	// The counts of BSB22 commitment selectors and rows, checked against
	// the file's length before gnark's decoder allocates what they say (a
	// count of 2^32 rows is 32 GiB to it); gnark's keys have one row a
	// commitment.
	qcp, rows, err := vkCounts(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("verifying key %q: %w", path, err)
	}
	if want := vkEncoding().size(qcp, rows); want != int64(len(data)) {
		return nil, fmt.Errorf("verifying key %q: declares %d BSB22 commitments and %d commitment rows, which make %d bytes, not its %d", path, qcp, rows, want, len(data))
	}
	if qcp != rows {
		return nil, fmt.Errorf("verifying key %q: declares %d BSB22 commitments and %d commitment rows, not one row a commitment", path, qcp, rows)
	}
	vk := &gplonk.VerifyingKey{}
	n, err := vk.ReadFrom(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("verifying key %q: %w", path, err)
	}
	if n != int64(len(data)) {
		return nil, fmt.Errorf("verifying key %q: %d bytes of trailing data", path, int64(len(data))-n)
	}
	return vk, nil
}

func encodeVK(vk *gplonk.VerifyingKey) ([]byte, error) {
	var b bytes.Buffer
	if _, err := vk.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeVKRaw is vk's raw encoding, to compare two keys.
func encodeVKRaw(vk *gplonk.VerifyingKey) []byte {
	var b bytes.Buffer
	_, _ = vk.WriteRawTo(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// key is a *Key as stages/family sees it.
type key struct {
	k     *Key
	sys   family.System
	files []string
	vk    *verifyingKey
}

func newKey(k *Key, sys family.System, c Cache) *key {
	sys.CCS = k.SPR
	fk := &key{k: k, sys: sys}
	fk.vk, _ = newVerifyingKey(k.VK, "key "+k.Name) // the key's own: encodes
	if c.Dir != "" {
		fk.files = []string{c.Path(sys.Name, sys.Size)}
		fk.vk.from = fk.files[0]
	}
	return fk
}

func (k *key) Name() string { return k.k.Name }
func (k *key) System() family.System {
	s := k.sys
	s.Curve = Curve
	return s
}
func (k *key) Constraints() int                  { return k.k.Constraints() }
func (k *key) Files() []string                   { return k.files }
func (k *key) VerifyingKey() family.VerifyingKey { return k.vk }

// Inputs are the SparseR1CS's public and secret inputs.
func (k *key) Inputs() family.Inputs { return Family{}.Inputs(k.k.SPR) }

// Inputs are a SparseR1CS's inputs a full witness holds: its public and
// secret ones.
func (Family) Inputs(ccs constraint.ConstraintSystem) family.Inputs {
	return family.Inputs{Public: ccs.GetNbPublicVariables(), Secret: ccs.GetNbSecretVariables()}
}

// NewJob returns the job of the witnesses, one partition each.
func (k *key) NewJob(ws []witness.Witness) (family.Job, error) {
	j, err := NewJob(k.k, ws)
	if err != nil {
		return nil, err
	}
	return &familyJob{j: j, key: k}, nil
}

// familyJob is a *Job as stages/family sees it.
type familyJob struct {
	j   *Job
	key *key
}

// Payload is the *Job the stages read.
func (j *familyJob) Payload() any { return j.j }

// Partitions is the job's partition count, one a witness.
func (j *familyJob) Partitions() int { return j.j.Partitions() }

// Files are batch_open's proof (gnark's serialization, WriteTo) and the
// partition's public witness (gnark's binary witness).
func (j *familyJob) Files(partition int, output any) (family.Files, error) {
	proof, ok := output.(*gplonk.Proof)
	if !ok || proof == nil {
		return family.Files{}, fmt.Errorf("partition %d: output %T, want the proof (*plonk.Proof of gnark's bls12-381 backend)", partition, output)
	}
	pb, err := j.public(partition)
	if err != nil {
		return family.Files{}, err
	}
	var b bytes.Buffer
	if _, err := proof.WriteTo(&b); err != nil {
		return family.Files{}, fmt.Errorf("partition %d: encode proof: %w", partition, err)
	}
	return family.Files{Proof: b.Bytes(), Public: pb}, nil
}

// public is partition's public witness, encoded.
func (j *familyJob) public(partition int) ([]byte, error) {
	if partition < 0 || partition >= len(j.j.Witnesses) {
		return nil, fmt.Errorf("partition %d of %d", partition, len(j.j.Witnesses))
	}
	pub, err := j.j.Witnesses[partition].Public()
	if err != nil {
		return nil, err
	}
	return pub.MarshalBinary()
}

// Verify checks partition's files against the job's key and the
// partition's own public inputs.
func (j *familyJob) Verify(partition int, f family.Files) error {
	want, err := j.public(partition)
	if err != nil {
		return err
	}
	if !bytes.Equal(f.Public, want) {
		return fmt.Errorf("plonk partition %d: not the public inputs of its witness", partition)
	}
	return j.key.vk.Verify(f)
}

// proveBaseline proves partition's witness with gnark's plonk.Prove and
// verifies the proof.
func (j *familyJob) proveBaseline(partition int) error {
	if partition < 0 || partition >= len(j.j.Witnesses) {
		return fmt.Errorf("partition %d of %d", partition, len(j.j.Witnesses))
	}
	k := j.j.Key
	proof, err := gnarkplonk.Prove(k.SPR, k.PK, j.j.Witnesses[partition])
	if err != nil {
		return fmt.Errorf("gnark plonk.Prove, circuit %q partition %d: %w", k.Circuit, partition, err)
	}
	pub, err := j.j.Witnesses[partition].Public()
	if err != nil {
		return err
	}
	if err := gnarkplonk.Verify(proof, k.VK, pub); err != nil {
		return fmt.Errorf("gnark plonk.Prove's proof, circuit %q partition %d: %w", k.Circuit, partition, err)
	}
	return nil
}

// BaselineName names gnark's prover in bench's table.
func (Family) BaselineName() string { return "gnark plonk.Prove" }

// ProveBaseline proves partition's witness of job (one of this family's)
// with gnark's plonk.Prove and verifies the proof.
func (Family) ProveBaseline(job family.Job, partition int) error {
	j, ok := job.(*familyJob)
	if !ok {
		return fmt.Errorf("plonk baseline: job %T is not a plonk job", job)
	}
	return j.proveBaseline(partition)
}

// verifyingKey is a PLONK verifying key as family.VerifyingKey.
type verifyingKey struct {
	vk    *gplonk.VerifyingKey
	bytes []byte
	from  string
}

func newVerifyingKey(vk *gplonk.VerifyingKey, from string) (*verifyingKey, error) {
	b, err := encodeVK(vk)
	if err != nil {
		return nil, err
	}
	return &verifyingKey{vk: vk, bytes: b, from: from}, nil
}

// From names what the proofs are checked with.
func (v *verifyingKey) From() string { return v.from }

// Bytes is the verifying key file's contents.
func (v *verifyingKey) Bytes() []byte { return v.bytes }

// NbPublic is the public inputs a public witness holds.
func (v *verifyingKey) NbPublic() int { return int(v.vk.NbPublicVariables) }

// Verify checks a partition's files: the proof has the size of one
// without commitments (checked before gnark's decoder reads a count), the
// public witness decodes with the key's count, and gnark's plonk.Verify
// accepts the proof.
func (v *verifyingKey) Verify(f family.Files) error {
	name := func(n, what string) string {
		if n == "" {
			return what
		}
		return n
	}
	pub, err := family.DecodeWitness(f.Public, fr.Modulus(), family.Inputs{Public: v.NbPublic()})
	if err != nil {
		return fmt.Errorf("%s: %w", name(f.PublicName, "public inputs"), err)
	}
	if want := proofSize(len(v.vk.Qcp)); len(f.Proof) != want {
		return fmt.Errorf("%s: %d bytes, want %d (%d BSB22 commitments)", name(f.ProofName, "proof"), len(f.Proof), want, len(v.vk.Qcp))
	}
	var proof gplonk.Proof
	if _, err := keyfile.ReadSafely(proof.ReadFrom, bytes.NewReader(f.Proof)); err != nil {
		return fmt.Errorf("%s: decode: %w", name(f.ProofName, "proof"), err)
	}
	if err := gnarkplonk.Verify(&proof, v.vk, pub); err != nil {
		return fmt.Errorf("the proof does not verify: %w", err)
	}
	return nil
}

var (
	_ family.Prover       = Family{}
	_ family.Baseline     = Family{}
	_ family.VerifyingKey = (*verifyingKey)(nil)
)

// Unwrap returns the *Key of a key the family made.
func Unwrap(k family.Key) (*Key, bool) {
	fk, ok := k.(*key)
	if !ok {
		return nil, false
	}
	return fk.k, true
}
