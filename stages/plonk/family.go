package plonk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	gnarkplonk "github.com/consensys/gnark/backend/plonk"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/circuits"
)

// keyName names a key by its circuit, domain and verifying key's bytes.
func keyName(circuit string, vk *gplonk.VerifyingKey) (string, error) {
	var b bytes.Buffer
	if _, err := vk.WriteRawTo(&b); err != nil {
		return "", fmt.Errorf("plonk key %q: %w", circuit, err)
	}
	sum := sha256.Sum256(b.Bytes())
	return fmt.Sprintf("plonk/%s/%d/%s", circuit, vk.Size, hex.EncodeToString(sum[:12])), nil
}

// Circuits are the shipped circuits (stages/groth16/circuits), compiled
// for PLONK; chain, the first, is the default.
func (Family) Circuits() []string { return circuits.Names() }

// SizeRange is the circuit's minimum to MaxSize/4 (a circuit's PLONK
// constraints are a few times its size; NewKey refuses a domain above
// MaxSize).
func (f Family) SizeRange(circuit string) (int, int, error) {
	if circuit == "" {
		circuit = f.Circuits()[0]
	}
	c, err := circuits.Lookup(circuit)
	if err != nil {
		return 0, 0, err
	}
	return c.MinSize, MaxSize / 4, nil
}

// Layout: each partition's public inputs beside its proof, and the
// verifying key as vk.bin (gnark's serialization).
func (Family) Layout() family.Layout { return family.Layout{Public: true, VK: "vk.bin"} }

// Setup loads the key of req from the cache, or makes it with an unsafe
// SRS (always with req.Force) and saves it; cancelling ctx stops the
// setup between its phases (UnsafeSetup), writing nothing.
func (f Family) Setup(ctx context.Context, req family.KeyRequest, log io.Writer) (family.Key, error) {
	circuit, err := family.CheckCircuit(f, req)
	if err != nil {
		return nil, err
	}
	c := Cache{Dir: req.Dir}
	if !req.Force {
		k, inst, err := c.LoadOrSetup(ctx, circuit, req.Size, log)
		if err != nil {
			return nil, err
		}
		return &key{k: k, inst: inst, path: c.Path(circuit, req.Size)}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "plonk setup (forced): circuit %s, size %d, into %s\n", circuit, req.Size, c.Path(circuit, req.Size))
	spr, inst, err := Compile(circuit, req.Size)
	if err != nil {
		return nil, err
	}
	k, err := UnsafeSetup(ctx, circuit, spr)
	if err != nil {
		return nil, err
	}
	if err := c.Save(k, req.Size); err != nil {
		return nil, err
	}
	return &key{k: k, inst: inst, path: c.Path(circuit, req.Size)}, nil
}

// Load loads the key of req from the cache; ErrNotCached (which wraps
// family.ErrNotCached) when it is not there.
func (f Family) Load(ctx context.Context, req family.KeyRequest) (family.Key, error) {
	circuit, err := family.CheckCircuit(f, req)
	if err != nil {
		return nil, err
	}
	c := Cache{Dir: req.Dir}
	k, inst, err := c.Load(ctx, circuit, req.Size)
	if err != nil {
		return nil, err
	}
	return &key{k: k, inst: inst, path: c.Path(circuit, req.Size)}, nil
}

// maxVKFile bounds a verifying key file verify --vk reads (one without
// commitments is about 48 KiB; a BSB22 commitment adds 56 bytes).
const maxVKFile = 1 << 20

// Verifier checks proofs with the verifying key of the cache's key (which
// must be the one the manifest names) or of req.VKFile, and the public
// inputs against the ones the manifest's seed gives each partition.
func (f Family) Verifier(ctx context.Context, req family.VerifyRequest) (family.Verifier, error) {
	circuit, err := family.CheckCircuit(f, req.KeyRequest)
	if err != nil {
		return nil, err
	}
	inst, err := circuits.New(circuit, req.Size)
	if err != nil {
		return nil, err
	}
	if req.Partitions < 1 {
		return nil, fmt.Errorf("%s: %d partitions, want at least 1", req.Manifest, req.Partitions)
	}
	v := &verifier{inst: inst, seed: req.Seed, partitions: req.Partitions}
	if req.VKFile != "" {
		if v.vk, err = readVK(req.VKFile); err != nil {
			return nil, err
		}
		v.from = req.VKFile
	} else {
		k, _, err := Cache{Dir: req.Dir}.Load(ctx, circuit, req.Size)
		if err != nil {
			if errors.Is(err, family.ErrNotCached) && req.DirVK != "" {
				return nil, fmt.Errorf("%w; or check the proofs with the directory's verifying key: verify --vk %s", err, req.DirVK)
			}
			return nil, err
		}
		if req.Key != "" && k.Name != req.Key {
			return nil, fmt.Errorf("%s: key is %q, but the key cache %s holds %q for circuit %s size %d: the proofs were made with another key",
				req.Manifest, req.Key, req.Dir, k.Name, circuit, req.Size)
		}
		v.vk, v.from = k.VK, "key "+k.Name
	}
	if v.vkBytes, err = encodeVK(v.vk); err != nil {
		return nil, err
	}
	return v, nil
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

// key is a *Key as stages/family sees it.
type key struct {
	k    *Key
	inst circuits.Instance
	path string
}

func (k *key) Name() string     { return k.k.Name }
func (k *key) Circuit() string  { return k.k.Circuit }
func (k *key) Constraints() int { return k.k.Constraints() }
func (k *key) Files() []string  { return []string{k.path} }

// NewJob returns the job of partitions witnesses: partition p's from
// circuits.PartitionSeed(seed, p).
func (k *key) NewJob(partitions int, seed uint64) (family.Job, error) {
	if partitions < 1 {
		return nil, fmt.Errorf("plonk job %q: %d partitions, want at least 1", k.k.Circuit, partitions)
	}
	ws := make([]witness.Witness, partitions)
	for p := range ws {
		w, err := circuits.Witness(k.inst.Assignment(circuits.PartitionSeed(seed, p)))
		if err != nil {
			return nil, fmt.Errorf("plonk job %q partition %d: %w", k.k.Circuit, p, err)
		}
		ws[p] = w
	}
	j, err := NewJob(k.k, ws)
	if err != nil {
		return nil, err
	}
	v := &verifier{vk: k.k.VK, inst: k.inst, seed: seed, partitions: partitions, from: "key " + k.k.Name}
	if v.vkBytes, err = encodeVK(k.k.VK); err != nil {
		return nil, err
	}
	return &familyJob{j: j, verifier: v}, nil
}

// familyJob is a *Job as stages/family sees it.
type familyJob struct {
	j *Job
	*verifier
}

// Payload is the *Job the stages read.
func (j *familyJob) Payload() any { return j.j }

// Files are batch_open's proof (gnark's serialization, WriteTo) and the
// partition's public witness (gnark's binary witness).
func (j *familyJob) Files(partition int, output any) (family.Files, error) {
	proof, ok := output.(*gplonk.Proof)
	if !ok || proof == nil {
		return family.Files{}, fmt.Errorf("partition %d: output %T, want the proof (*plonk.Proof of gnark's bls12-381 backend)", partition, output)
	}
	if partition < 0 || partition >= len(j.j.Witnesses) {
		return family.Files{}, fmt.Errorf("partition %d of %d", partition, len(j.j.Witnesses))
	}
	var b bytes.Buffer
	if _, err := proof.WriteTo(&b); err != nil {
		return family.Files{}, fmt.Errorf("partition %d: encode proof: %w", partition, err)
	}
	pub, err := j.j.Witnesses[partition].Public()
	if err != nil {
		return family.Files{}, err
	}
	pb, err := pub.MarshalBinary()
	if err != nil {
		return family.Files{}, err
	}
	return family.Files{Proof: b.Bytes(), Public: pb}, nil
}

// VK is the verifying key's file contents.
func (j *familyJob) VK() ([]byte, error) { return j.vkBytes, nil }

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

// verifier checks a partition's files against a verifying key and the
// public inputs the seed gives the partition.
type verifier struct {
	vk         *gplonk.VerifyingKey
	vkBytes    []byte
	inst       circuits.Instance
	seed       uint64
	partitions int
	from       string
}

// From names what the proofs are checked with.
func (v *verifier) From() string { return v.from }

// VK is the verifying key file's contents.
func (v *verifier) VK() []byte { return v.vkBytes }

// Verify checks partition's files: the public inputs are the seed's (a
// directory without public-N.bin is checked against the seed's), the
// proof has the size of one with the verifying key's number of BSB22
// commitments (checked before gnark's decoder reads a count) and gnark's
// plonk.Verify accepts it.
func (v *verifier) Verify(partition int, f family.Files) error {
	if partition < 0 || partition >= v.partitions {
		return fmt.Errorf("plonk partition %d of %d", partition, v.partitions)
	}
	pub, err := circuits.PartitionPublic(v.inst, v.seed, partition)
	if err != nil {
		return err
	}
	want, err := pub.MarshalBinary()
	if err != nil {
		return err
	}
	if f.Public != nil && !bytes.Equal(f.Public, want) {
		return fmt.Errorf("plonk partition %d: the public inputs are not the ones of seed %d's witness", partition, v.seed)
	}
	if want := proofSize(len(v.vk.Qcp)); len(f.Proof) != want {
		return fmt.Errorf("plonk partition %d: proof of %d bytes, want %d (%d BSB22 commitments)", partition, len(f.Proof), want, len(v.vk.Qcp))
	}
	var proof gplonk.Proof
	if _, err := proof.ReadFrom(bytes.NewReader(f.Proof)); err != nil {
		return fmt.Errorf("plonk partition %d: decode proof: %w", partition, err)
	}
	if err := gnarkplonk.Verify(&proof, v.vk, pub); err != nil {
		return fmt.Errorf("plonk partition %d: %w", partition, err)
	}
	return nil
}

var (
	_ family.Prover   = Family{}
	_ family.Baseline = Family{}
	_ family.Verifier = (*verifier)(nil)
)
