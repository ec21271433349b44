package prover

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/internal/usercircuit"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	"github.com/prooflane/prooflane/workloads"
)

// setup makes the chain circuit's keys of size 64 in a fresh cache.
func setup(t testing.TB) (family.KeyRequest, family.Key) {
	t.Helper()
	req := family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "chain", Size: 64}}
	k, err := Family{}.Setup(context.Background(), req, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return req, k
}

// newJob is k's job of partitions witnesses from seed.
func newJob(t testing.TB, k family.Key, partitions int, seed uint64) family.Job {
	t.Helper()
	j, err := workloads.Job(k, partitions, seed)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// gnarkFiles proves partition p of job with gnark's prover and returns
// its files.
func gnarkFiles(t testing.TB, j family.Job, p int) family.Files {
	t.Helper()
	gj := j.(*Job)
	proof, err := g16.Prove(gj.R1CS, gj.PK, gj.Witnesses[p])
	if err != nil {
		t.Fatal(err)
	}
	f, err := j.Files(p, proof)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A key set up through the family loads again under the same name; a
// job's files verify through the job and through the verifying key, and
// another partition's do not pass as its own.
func TestGroth16FilesVerifyThroughTheJobAndTheVerifyingKey(t *testing.T) {
	ctx := context.Background()
	req, k := setup(t)
	if sys := k.System(); sys.Name != "chain" || sys.Size != 64 || k.Constraints() < 1 || len(k.Files()) != 3 {
		t.Fatalf("key %s: system %v, %d constraints, files %v", k.Name(), sys, k.Constraints(), k.Files())
	}
	again, err := Family{}.Load(ctx, req)
	if err != nil || again.Name() != k.Name() {
		t.Fatalf("loaded %v, %v; want %s", again, err, k.Name())
	}
	j := newJob(t, k, 2, 9)
	f0, f1 := gnarkFiles(t, j, 0), gnarkFiles(t, j, 1)
	if err := j.Verify(0, f0); err != nil {
		t.Fatalf("job: partition 0's own files: %v", err)
	}
	if err := j.Verify(1, f0); err == nil {
		t.Error("job: partition 0's files verified as partition 1's")
	}
	vk, err := Family{}.VerifyingKey(ctx, req, "", k.Constraints())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vk.Bytes(), k.VerifyingKey().Bytes()) || !strings.HasSuffix(vk.From(), ".vk") {
		t.Errorf("the cache's verifying key %s is not the key's", vk.From())
	}
	if err := vk.Verify(f1); err != nil {
		t.Errorf("verifying key: partition 1's own files: %v", err)
	}
	if err := vk.Verify(family.Files{Proof: f1.Proof, Public: f0.Public}); err == nil {
		t.Error("verifying key: partition 1's proof with partition 0's public inputs verified")
	}
}

// The cache's verifying key is refused when it does not fit: a missing
// key (family.ErrNotCached), a constraint count that is not the cache's;
// a --vk file is used instead of the cache.
func TestGroth16VerifyingKeyChecksTheRequestAgainstTheCache(t *testing.T) {
	ctx := context.Background()
	req, k := setup(t)
	empty := req
	empty.Dir = t.TempDir()
	if _, err := (Family{}).VerifyingKey(ctx, empty, "", k.Constraints()); !errors.Is(err, family.ErrNotCached) || !strings.Contains(err.Error(), "--vk FILE") {
		t.Errorf("empty cache: %v", err)
	}
	if _, err := (Family{}).VerifyingKey(ctx, req, "", k.Constraints()+1); err == nil || !strings.Contains(err.Error(), "constraints is 65, but circuit \"chain\" size 64 has") {
		t.Errorf("constraint count off by one: %v", err)
	}
	j := newJob(t, k, 1, 1)
	file := filepath.Join(t.TempDir(), "vk.bin")
	if err := os.WriteFile(file, k.VerifyingKey().Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	vk, err := Family{}.VerifyingKey(ctx, empty, file, 0)
	if err != nil || vk.From() != file {
		t.Fatalf("--vk: %v, from %v", err, vk)
	}
	if err := vk.Verify(gnarkFiles(t, j, 0)); err != nil {
		t.Errorf("--vk: %v", err)
	}
}

// Sizes and circuits are checked before any work: an unknown built-in
// circuit, a size of 0 and one above MaxSize are refused.
func TestGroth16RequestsAreCheckedFirst(t *testing.T) {
	f := Family{}
	for _, sys := range []family.System{{Name: "nope", Size: 64}, {Name: "chain", Size: 0}, {Name: "chain", Size: MaxSize + 1}} {
		if _, err := f.Setup(context.Background(), family.KeyRequest{Dir: t.TempDir(), System: sys}, io.Discard); err == nil {
			t.Errorf("%v: set up", sys)
		}
	}
}

// A user's own keys are read and checked against the constraint system:
// another circuit's are refused naming the mismatch before any proving.
func TestGroth16UserKeysAreCheckedAgainstTheConstraintSystem(t *testing.T) {
	ctx := context.Background()
	_, k := setup(t)
	dir := t.TempDir()
	sys := k.System()
	gk := k.(*Key)
	write := func(name string, w io.WriterTo) string { return usercircuit.WriteTo(t, dir, name, w) }
	pk, vk := write("pk", gk.Set.PK), write("vk", gk.Set.VK)
	own, err := Family{}.ReadKeys(ctx, sys, pk, vk)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Family{}).ProveBaseline(newJob(t, own, 1, 4), 0); err != nil {
		t.Errorf("a proof with the user's own keys: %v", err)
	}
	other, err := Family{}.Setup(ctx, family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "chain", Size: 256}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	opk, ovk := write("opk", other.(*Key).Set.PK), write("ovk", other.(*Key).Set.VK)
	if _, err := (Family{}).ReadKeys(ctx, sys, opk, ovk); err == nil || !strings.Contains(err.Error(), "proving key is for") {
		t.Errorf("another circuit's keys: %v", err)
	}
	if _, err := (Family{}).ReadKeys(ctx, sys, pk, ovk); err == nil || !strings.Contains(err.Error(), "--pk") {
		t.Errorf("a proving key with another circuit's verifying key: %v", err)
	}
}

// A proof or public inputs file whose declared lengths do not fit its
// size is refused before gnark decodes it (gnark would allocate what the
// length says).
func TestDecodingChecksDeclaredLengths(t *testing.T) {
	_, k := setup(t)
	j := newJob(t, k, 1, 1)
	f := gnarkFiles(t, j, 0)
	pub := append([]byte(nil), f.Public...)
	pub[8], pub[9], pub[10], pub[11] = 0xff, 0xff, 0xff, 0xff
	if _, err := DecodePublic(pub); err == nil || !strings.Contains(err.Error(), "corrupt: declares 4294967295 public inputs") {
		t.Errorf("public inputs: %v", err)
	}
	proof := append([]byte(nil), f.Proof...)
	proof[2*48+96] = 0x80
	if _, err := DecodeProof(proof); err == nil || !strings.Contains(err.Error(), "corrupt: declares 2147483648 commitments") {
		t.Errorf("proof: %v", err)
	}
	if _, err := DecodeProof(append(f.Proof, 0)); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("trailing byte: %v", err)
	}
}

// A decoder that panics on a file's bytes (in this goroutine) is an
// error of that file, not the end of the process.
func TestADecoderPanicIsAnError(t *testing.T) {
	err := decodeChecked([]byte{1}, func([]byte) error { return nil }, func(io.Reader) (int64, error) { panic("index out of range") })
	if err == nil || !strings.Contains(err.Error(), "decoder panicked: index out of range") {
		t.Errorf("error %v, want the panic as an error", err)
	}
}

// A proof or public-input file is user input: whatever bytes it holds,
// the length checks and gnark's decoders return an error or a value,
// without a panic or an allocation the file's size does not justify.
func FuzzProofAndPublicFiles(f *testing.F) {
	_, k := setup(f)
	j := newJob(f, k, 1, 1)
	files := gnarkFiles(f, j, 0)
	f.Add(files.Proof)
	f.Add(files.Public)
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeProof(data)
		DecodePublic(data)
	})
}

// The baseline proves and verifies a partition with gnark's prover.
func TestBaselineProvesWithGnark(t *testing.T) {
	_, k := setup(t)
	j := newJob(t, k, 2, 3)
	if err := (Family{}).ProveBaseline(j, 1); err != nil {
		t.Fatal(err)
	}
	if err := (Family{}).ProveBaseline(j, 2); err == nil {
		t.Error("partition 2 of 2 proved")
	}
}

func TestMemEstimateFormula(t *testing.T) {
	const n = 1 << 20
	c := costsOf("chain", false)
	if got, want := memEstimate(c, n, 10, 0, false), uint64(memBase+n*c.keys+10*n*c.partition); got != want {
		t.Errorf("prove estimate %d, want %d", got, want)
	}
	if got := memEstimate(c, n, 0, 0, true); got != memBase+n*c.setup {
		t.Errorf("setup estimate %d", got)
	}
	if memEstimate(c, n, 10, 0, true) != memEstimate(c, n, 10, 0, false) {
		t.Error("with 10 partitions the prove needs more than the setup: the estimate is the larger")
	}
	dir := t.TempDir()
	if est, setup := (Family{}).HostMemory(family.KeyRequest{Dir: dir, System: family.System{Name: "chain", Size: 1 << 17}}, nil, 4); est != 0 || setup {
		t.Errorf("below 2^18: %d, %v; want no estimate", est, setup)
	}
	if est, setup := (Family{}).HostMemory(family.KeyRequest{Dir: dir, System: family.System{Name: "chain", Size: n}}, nil, 10); est != memEstimate(c, n, 10, 0, true) || !setup {
		t.Errorf("nothing cached: %d, %v; want the setup counted", est, setup)
	}
	// g2_on: cpu beside a device counts the host's G2 MSMs, g2_workers
	// of them at most (2 by default), never more than the partitions.
	// (a key cached: the prove's estimate, not the setup's)
	cached := t.TempDir()
	_, pk, _ := keys.Cache{Dir: cached}.Paths("chain", n)
	if err := os.WriteFile(pk, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dev := family.KeyRequest{Dir: cached, System: family.System{Name: "chain", Size: n}, OnDevice: true}
	for _, tc := range []struct {
		params   map[string]string
		inFlight int
		msms     uint64
	}{
		{map[string]string{"g2_on": "cpu"}, 4, 2},
		{map[string]string{"g2_on": "cpu", "g2_workers": "3"}, 4, 3},
		{map[string]string{"g2_on": "cpu", "g2_workers": "3"}, 1, 1},
	} {
		with, _ := (Family{}).HostMemory(dev, tc.params, tc.inFlight)
		without, _ := (Family{}).HostMemory(dev, map[string]string{"g2_on": "device"}, tc.inFlight)
		if with-without != tc.msms*n*hostG2PerC {
			t.Errorf("%v, %d in flight: %d bytes more than g2_on: device, want %d host G2 MSMs' %d", tc.params, tc.inFlight, with-without, tc.msms, tc.msms*n*hostG2PerC)
		}
	}
	if cpuOnly, _ := (Family{}).HostMemory(family.KeyRequest{Dir: dir, System: family.System{Name: "chain", Size: n}}, map[string]string{"g2_on": "cpu"}, 4); cpuOnly != memEstimate(c, n, 4, 0, true) {
		t.Error("on the CPU backend every MSM is on the host already: g2_on: cpu adds nothing")
	}
}
