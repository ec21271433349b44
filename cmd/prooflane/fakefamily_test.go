package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/prover"
	"github.com/prooflane/prooflane/workloads"
)

// toyFamily is a family registered by a test only: it takes the
// constraint systems Groth16 does (it compiles and reads them as
// Groth16's family does), its key is 32 random bytes in a file of the
// cache, a partition's proof the sha256 of key and public witness, and
// its verifying key file the key itself. It has every kind of file a
// family may write (proof, public inputs, a verifying key).
type toyFamily struct{}

func (toyFamily) Layout() family.Layout { return family.Layout{Public: true, VK: "vk.bin"} }
func (toyFamily) Compile(curve ecc.ID, name string, c frontend.Circuit) (constraint.ConstraintSystem, error) {
	return prover.Family{}.Compile(curve, name, c)
}
func (toyFamily) ReadSystem(ctx context.Context, curve ecc.ID, path string) (constraint.ConstraintSystem, error) {
	return prover.Family{}.ReadSystem(ctx, curve, path)
}
func (toyFamily) Inputs(ccs constraint.ConstraintSystem) family.Inputs {
	return prover.Family{}.Inputs(ccs)
}

func (toyFamily) Name() string               { return "toy" }
func (toyFamily) ProofType() stages.DataType { return "toy.proof" }
func (toyFamily) MaxSize() int               { return 1000 }
func (toyFamily) path(dir string, sys family.System) string {
	return filepath.Join(dir, fmt.Sprintf("toy-%s-%d.key", sys.Name, sys.Size))
}

func (f toyFamily) Setup(ctx context.Context, req family.KeyRequest, _ io.Writer) (family.Key, error) {
	if k, err := f.Load(ctx, req); err == nil && !req.Force || err != nil && !errors.Is(err, family.ErrNotCached) {
		return k, err
	}
	var secret [32]byte
	rand.Read(secret[:])
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.path(req.Dir, req.System), secret[:], 0o644); err != nil {
		return nil, err
	}
	return f.Load(ctx, req)
}

func (f toyFamily) Load(_ context.Context, req family.KeyRequest) (family.Key, error) {
	vk, err := readToyKey(f.path(req.Dir, req.System))
	if err != nil {
		return nil, err
	}
	sys := req.System
	if sys.CCS == nil {
		inst, err := workloads.New(sys.Curve, sys.Name, sys.Size)
		if err != nil {
			return nil, err
		}
		if sys.CCS, err = f.Compile(sys.Curve, sys.Name, inst.Circuit()); err != nil {
			return nil, err
		}
	}
	return toyKey{vk: vk, sys: sys, files: []string{vk.from}}, nil
}

func (f toyFamily) ReadKeys(context.Context, family.System, string, string) (family.Key, error) {
	return nil, errors.New("toy: no keys of the user's")
}

func (f toyFamily) VerifyingKey(_ context.Context, req family.KeyRequest, file string, _ int) (family.VerifyingKey, error) {
	if file == "" {
		file = f.path(req.Dir, req.System)
	}
	return readToyKey(file)
}

func readToyKey(path string) (toyVK, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return toyVK{}, fmt.Errorf("%s: %w", path, family.ErrNotCached)
	}
	if err != nil || len(b) != 32 {
		return toyVK{}, fmt.Errorf("%s: not a toy key (%v)", path, err)
	}
	v := toyVK{from: path}
	copy(v.secret[:], b)
	return v, nil
}

type toyVK struct {
	secret [32]byte
	from   string
}

func (v toyVK) From() string  { return v.from }
func (v toyVK) Bytes() []byte { return v.secret[:] }
func (v toyVK) NbPublic() int { return 0 }
func (v toyVK) proof(public []byte) []byte {
	h := sha256.Sum256(append(v.secret[:], public...))
	return h[:]
}
func (v toyVK) Verify(f family.Files) error {
	if !bytes.Equal(f.Proof, v.proof(f.Public)) {
		return errors.New("toy: not the proof of these public inputs")
	}
	return nil
}

type toyKey struct {
	vk    toyVK
	sys   family.System
	files []string
}

func (k toyKey) Name() string                      { return fmt.Sprintf("toy/%x", k.vk.secret[:4]) }
func (k toyKey) System() family.System             { return k.sys }
func (k toyKey) Constraints() int                  { return k.sys.CCS.GetNbConstraints() }
func (k toyKey) Inputs() family.Inputs             { return toyFamily{}.Inputs(k.sys.CCS) }
func (k toyKey) Files() []string                   { return k.files }
func (k toyKey) VerifyingKey() family.VerifyingKey { return k.vk }
func (k toyKey) NewJob(ws []witness.Witness) (family.Job, error) {
	j := toyJob{key: k}
	for _, w := range ws {
		pub, err := w.Public()
		if err != nil {
			return nil, err
		}
		b, err := pub.MarshalBinary()
		if err != nil {
			return nil, err
		}
		j.public = append(j.public, b)
	}
	return j, nil
}

type toyJob struct {
	key    toyKey
	public [][]byte
}

func (j toyJob) Payload() any    { return j }
func (j toyJob) Partitions() int { return len(j.public) }
func (j toyJob) Files(p int, out any) (family.Files, error) {
	b, ok := out.([]byte)
	if !ok {
		return family.Files{}, fmt.Errorf("output %T", out)
	}
	return family.Files{Proof: b, Public: j.public[p]}, nil
}
func (j toyJob) Verify(p int, f family.Files) error {
	if p >= len(j.public) || !bytes.Equal(f.Public, j.public[p]) {
		return fmt.Errorf("toy partition %d: not its public inputs", p)
	}
	return j.key.vk.Verify(f)
}

// toyStage proves a partition: the job's proof of it.
type toyStage struct{}

func (toyStage) Run(_ context.Context, in *stages.Input) (any, error) {
	j, ok := in.Job.(toyJob)
	if !ok {
		return nil, fmt.Errorf("payload %T", in.Job)
	}
	return j.key.vk.proof(j.public[in.Partition]), nil
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
	if rc, stdout, stderr := prooflane(t, "setup", "--pipeline", pipeline, "--size", "8", "--keys", keysDir); rc != 0 || !strings.Contains(stdout, `circuit "chain" size 8: `) {
		t.Fatalf("setup: exit %d\n%s%s", rc, stdout, stderr)
	}
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", pipeline, "--size", "8", "--keys", keysDir, "--out", out, "--progress", "off")
	if rc != 0 || !strings.Contains(stdout, "3 proofs of chain (size 8, ") {
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
	if rc != 1 || !strings.Contains(stdout, "FAIL proof-0.bin: toy: not the proof") || !strings.Contains(stderr, "is not the verifying key the prover wrote to "+filepath.Join(out, "vk.bin")) {
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
	if rc, _, stderr := prooflane(t, "prove", "--pipeline", pipeline, "--size", "2^20", "--keys", keysDir, "--out", out); rc != 2 || !strings.Contains(stderr, "the toy family's limit on sizes") {
		t.Errorf("--size above the family's limit: exit %d, %s", rc, stderr)
	}
}
