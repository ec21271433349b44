package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
)

// toyFamily is a family registered by a test only: its key is 32 random
// bytes in a file of the cache, a partition's proof the sha256 of key,
// seed and partition, its public inputs seed and partition, and its
// verifying key file the key itself. It has every kind of file a family
// may write (proof, public inputs, a verifying key), and no circuits.
type toyFamily struct{}

func (toyFamily) Name() string               { return "toy" }
func (toyFamily) ProofType() stages.DataType { return "toy.proof" }
func (toyFamily) Circuits() []string         { return nil }
func (toyFamily) Layout() family.Layout      { return family.Layout{Public: true, VK: "vk.bin"} }
func (toyFamily) path(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("toy-%d.key", n))
}

func (f toyFamily) SizeRange(circuit string) (int, int, error) {
	if circuit != "" {
		return 0, 0, errors.New("no circuits")
	}
	return 1, 1000, nil
}

func (f toyFamily) Setup(ctx context.Context, req family.KeyRequest, _ io.Writer) (family.Key, error) {
	if k, err := f.Load(ctx, req); err == nil && !req.Force || err != nil && !errors.Is(err, family.ErrNotCached) {
		return k, err
	}
	k := toyKey{size: req.Size, files: []string{f.path(req.Dir, req.Size)}}
	rand.Read(k.secret[:])
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return nil, err
	}
	return k, os.WriteFile(k.files[0], k.secret[:], 0o644)
}

func (f toyFamily) Load(_ context.Context, req family.KeyRequest) (family.Key, error) {
	if _, err := family.CheckCircuit(f, req); err != nil {
		return nil, err
	}
	return readToyKey(f.path(req.Dir, req.Size), req.Size)
}

func readToyKey(path string, size int) (family.Key, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, family.ErrNotCached)
	}
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%s: not a toy key (%v)", path, err)
	}
	k := toyKey{size: size, files: []string{path}}
	copy(k.secret[:], b)
	return k, nil
}

func (f toyFamily) Verifier(ctx context.Context, req family.VerifyRequest) (family.Verifier, error) {
	path := f.path(req.Dir, req.Size)
	if req.VKFile != "" {
		path = req.VKFile
	}
	k, err := readToyKey(path, req.Size)
	if err != nil {
		return nil, err
	}
	j, err := k.NewJob(req.Partitions, req.Seed)
	return toyVerifier{j.(toyJob), path}, err
}

type toyKey struct {
	secret [32]byte
	size   int
	files  []string
}

func (k toyKey) Name() string     { return fmt.Sprintf("toy/%x", k.secret[:4]) }
func (k toyKey) Circuit() string  { return "toy" }
func (k toyKey) Constraints() int { return k.size }
func (k toyKey) Files() []string  { return k.files }
func (k toyKey) NewJob(partitions int, seed uint64) (family.Job, error) {
	return toyJob{k, partitions, seed}, nil
}

type toyJob struct {
	key        toyKey
	partitions int
	seed       uint64
}

func (j toyJob) Payload() any { return j }
func (j toyJob) public(p int) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, j.seed), uint64(p))
}
func (j toyJob) proof(p int) []byte {
	h := sha256.Sum256(append(j.key.secret[:], j.public(p)...))
	return h[:]
}
func (j toyJob) Files(p int, out any) (family.Files, error) {
	b, ok := out.([]byte)
	if !ok {
		return family.Files{}, fmt.Errorf("output %T", out)
	}
	return family.Files{Proof: b, Public: j.public(p)}, nil
}
func (j toyJob) VK() ([]byte, error) { return j.key.secret[:], nil }
func (j toyJob) Verify(p int, f family.Files) error {
	if p >= j.partitions || !bytes.Equal(f.Proof, j.proof(p)) || !bytes.Equal(f.Public, j.public(p)) {
		return fmt.Errorf("toy partition %d: not its proof", p)
	}
	return nil
}

type toyVerifier struct {
	toyJob
	from string
}

func (v toyVerifier) From() string { return v.from }
func (v toyVerifier) VK() []byte   { return v.key.secret[:] }

// toyStage proves a partition: the job's proof of it.
type toyStage struct{}

func (toyStage) Run(_ context.Context, in *stages.Input) (any, error) {
	j, ok := in.Job.(toyJob)
	if !ok {
		return nil, fmt.Errorf("payload %T", in.Job)
	}
	return j.proof(in.Partition), nil
}

// withToyFamily registers the toy family and its stage type beside the
// shipped ones for the test's duration, and returns a pipeline of it.
func withToyFamily(t *testing.T) string {
	old := shipped
	t.Cleanup(func() { shipped = old })
	shipped.stages = func() *stages.Registry {
		return builtin.Registry().MustRegister(stages.Factory{Type: "toy.prove", Doc: "proves a toy partition", Output: "toy.proof",
			Payload: "a toy job", New: func(stages.Config) (stages.Stage, error) { return toyStage{}, nil }})
	}
	shipped.families = func() *family.Registry { return builtin.Families().MustRegister(toyFamily{}) }
	return writeFile(t, t.TempDir(), "toy.yaml", "pipeline: toy\nparams:\n  partitions: 3\nstages:\n  prove: {type: toy.prove}\n")
}

// A family registered in a test registry goes through setup, prove and
// verify with no edit to the commands: its proof, public input and
// verifying key files are written and listed, verify checks them against
// its key cache or a named key, refuses a tampered proof and notes that
// the cache's key is not the directory's.
func TestAFamilyRegisteredInATestGoesThroughProveAndVerify(t *testing.T) {
	pipeline := withToyFamily(t)
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if rc, stdout, stderr := prooflane(t, "setup", "--pipeline", pipeline, "--size", "8", "--keys", keysDir); rc != 0 || !strings.Contains(stdout, "toy key of size 8: toy/") {
		t.Fatalf("setup: exit %d\n%s%s", rc, stdout, stderr)
	}
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", pipeline, "--size", "8", "--keys", keysDir, "--out", out, "--progress", "off")
	if rc != 0 || !strings.Contains(stdout, "3 proofs of toy (size 8, 8 constraints)") {
		t.Fatalf("prove: exit %d\n%s%s", rc, stdout, stderr)
	}
	if got := dirNames(t, out); got != "manifest.json proof-0.bin proof-1.bin proof-2.bin public-0.bin public-1.bin public-2.bin trace.jsonl vk.bin" {
		t.Errorf("--out holds %s", got)
	}
	m, err := os.ReadFile(filepath.Join(out, manifestFile))
	if err != nil || !strings.Contains(string(m), `"family": "toy"`) || !strings.Contains(string(m), `"vk": "vk.bin"`) {
		t.Errorf("manifest %s (%v)", m, err)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
		t.Fatalf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	other := t.TempDir()
	if rc, stdout, stderr := prooflane(t, "setup", "--pipeline", pipeline, "--size", "8", "--keys", other); rc != 0 {
		t.Fatalf("setup of another key: exit %d\n%s%s", rc, stdout, stderr)
	}
	rc, stdout, stderr = prooflane(t, "verify", "--keys", other, out)
	if rc != 1 || !strings.Contains(stdout, "FAIL proof-0.bin: toy partition 0") || !strings.Contains(stderr, "is not the verifying key the prover wrote to "+filepath.Join(out, "vk.bin")) {
		t.Errorf("verify with another key: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", other, "--vk", filepath.Join(out, "vk.bin"), out); rc != 0 || !strings.Contains(stdout, "(the directory's own key, named with --vk)") {
		t.Errorf("verify --vk DIR/vk.bin: exit %d\n%s%s", rc, stdout, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "proof-1.bin"), []byte("nope"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, stdout, _ := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || !strings.Contains(stdout, "ok   proof-0.bin") || !strings.Contains(stdout, "FAIL proof-1.bin") {
		t.Errorf("verify of a tampered proof: exit %d\n%s", rc, stdout)
	}
	if rc, _, stderr := prooflane(t, "prove", "--pipeline", pipeline, "--circuit", "chain", "--keys", keysDir, "--out", out); rc != 2 || !strings.Contains(stderr, `pipeline "toy" is of the toy family, which has no circuits`) {
		t.Errorf("--circuit: exit %d, %s", rc, stderr)
	}
}
