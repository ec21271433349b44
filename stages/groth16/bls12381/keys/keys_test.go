package keys

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prooflane/prooflane/internal/keyfile"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// savedChain runs the setup of chain at 64 constraints and saves its keys
// to a fresh cache.
func savedChain(t *testing.T) (*Set, Cache) {
	t.Helper()
	s, err := Setup("chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: t.TempDir()}
	if err := c.Save(s); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestSavedKeysLoadBackAndProve(t *testing.T) {
	s, c := savedChain(t)
	got, err := c.Load(t.Context(), "chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	if got.R1CS.GetNbConstraints() != 64 || len(got.PK.G1.A) != len(s.PK.G1.A) || !got.VK.G1.Alpha.Equal(&s.VK.G1.Alpha) {
		t.Error("loaded keys differ from the saved ones")
	}
	ws, err := got.Witnesses(1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := got.R1CS.Solve(ws[0]); err != nil {
		t.Error(err)
	}
}

func TestKeysOfAnotherCircuitAreRefused(t *testing.T) {
	a, err := Setup("chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Setup("mimc", 64)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: t.TempDir()}
	if err := c.Save(a); err != nil {
		t.Fatal(err)
	}
	// chain's r1cs with mimc's proving key.
	_, pkA, _ := c.Paths("chain", 64)
	b.Circuit = "tmp"
	if err := c.Save(b); err != nil {
		t.Fatal(err)
	}
	_, pkB, _ := c.Paths("tmp", 64)
	if err := os.Rename(pkB, pkA); err != nil {
		t.Fatal(err)
	}
	_, err = c.Load(t.Context(), "chain", 64)
	if err == nil || !strings.Contains(err.Error(), "do not belong together") {
		t.Errorf("error %v, want keys that do not belong together", err)
	}
}

func TestTrailingBytesMakeAKeyFileCorrupt(t *testing.T) {
	_, c := savedChain(t)
	_, _, vk := c.Paths("chain", 64)
	f, err := os.OpenFile(vk, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{1, 2, 3})
	f.Close()
	_, err = c.Load(t.Context(), "chain", 64)
	if err == nil || !strings.Contains(err.Error(), `key file "`+vk+`" is corrupt`) {
		t.Errorf("error %v", err)
	}
	if errors.Is(err, ErrNotCached) {
		t.Error("a corrupt file reads as not cached: LoadOrSetup would overwrite it silently")
	}
}

func TestCompileRefusesAnUnknownCircuit(t *testing.T) {
	if _, _, err := Compile("nope", 64); err == nil || !strings.Contains(err.Error(), `unknown circuit "nope"`) {
		t.Errorf("error %v", err)
	}
}

// Two setups of one circuit have the same shapes; a cache holding the
// proving key of one and the verifying key of the other (two setups that
// raced on the directory, or a file copied in) would make proofs that
// never verify. Load and NewJob refuse such a pair.
func TestProvingAndVerifyingKeysOfDifferentSetupsAreRefused(t *testing.T) {
	a, err := Setup("chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Setup("chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: t.TempDir()}
	if err := c.Save(a); err != nil {
		t.Fatal(err)
	}
	other := Cache{Dir: t.TempDir()}
	if err := other.Save(b); err != nil {
		t.Fatal(err)
	}
	_, _, vkA := c.Paths("chain", 64)
	_, _, vkB := other.Paths("chain", 64)
	if err := os.Rename(vkB, vkA); err != nil {
		t.Fatal(err)
	}
	_, err = c.Load(t.Context(), "chain", 64)
	if !errors.Is(err, groth16.ErrKeysFromDifferentSetups) || !strings.Contains(err.Error(), "do not belong together") {
		t.Errorf("Load: error %v, want keys from different setups", err)
	}
	mixed := &Set{Circuit: "chain", Size: 64, R1CS: a.R1CS, PK: a.PK, VK: b.VK}
	if _, err := mixed.NewJob(1, 1); !errors.Is(err, groth16.ErrKeysFromDifferentSetups) {
		t.Errorf("NewJob: error %v, want keys from different setups", err)
	}
	// The matching pair still makes a job.
	if _, err := a.NewJob(1, 1); err != nil {
		t.Errorf("NewJob with a matching pair: %v", err)
	}
}

// gnark's decoder allocates what a length prefix says before reading: a
// verifying key whose count of public bases is flipped to 2^31 must be a
// corrupt file named in the error, not a fatal out-of-memory crash, even
// when its checksum matches (rewritten here: a --vk file has none).
func TestVerifyingKeyWithACorruptLengthIsCorruptNotACrash(t *testing.T) {
	_, c := savedChain(t)
	_, _, vk := c.Paths("chain", 64)
	if _, err := ReadVK(vk); err != nil {
		t.Fatalf("intact key: %v", err)
	}
	const kAt = 3*48 + 3*96 // after α₁ β₁ β₂ γ₂ δ₁ δ₂, compressed
	rewrite(t, vk, func(b []byte) { copy(b[kAt:kAt+4], []byte{0x80, 0, 0, 0}) })
	// Read as any file (--vk): no advice to set the cache up again.
	want := `key file "` + vk + `" is corrupt: declares 2147483648 public bases`
	if _, err := ReadVK(vk); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadVK: error %v, want %q", err, want)
	}
	want = `key file "` + vk + `" is corrupt (run prooflane setup --force to set the keys up again): declares 2147483648 public bases`
	if _, err := c.Load(t.Context(), "chain", 64); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load: error %v, want %q", err, want)
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Several provers starting at once on an empty cache (one process each in
// real life; goroutines with their own lock file descriptors here) run the
// setup once: the others wait for it and load its keys, so the cache never
// ends up with one setup's proving key next to another's verifying key.
func TestConcurrentLoadOrSetupRunsOneSetupAndEveryoneGetsItsKeys(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	var log syncBuffer
	sets := make([]*Set, 4)
	var wg sync.WaitGroup
	for i := range sets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.LoadOrSetup(context.Background(), "chain", 64, &log)
			if err != nil {
				t.Error(err)
				return
			}
			sets[i] = s
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if n := strings.Count(log.String(), "running setup"); n != 1 {
		t.Errorf("%d setups ran, want 1:\n%s", n, log.String())
	}
	cached, err := c.Load(t.Context(), "chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sets {
		if !s.VK.G1.Alpha.Equal(&cached.VK.G1.Alpha) || !s.PK.G1.Delta.Equal(&cached.PK.G1.Delta) {
			t.Errorf("prover %d got keys other than the cached ones", i)
		}
	}
}

// The same for the proving key (its file's checksum rewritten to match,
// so the lengths are what is checked): a flipped byte in the count of G1.A
// points or in the wire count is a corrupt file named in the error, not
// a fatal out-of-memory crash while loading the cache.
func TestProvingKeyWithACorruptLengthIsCorruptNotACrash(t *testing.T) {
	s, c := savedChain(t)
	_, pk, _ := c.Paths("chain", 64)
	const aAt = 8 + 5*32 + 1 + 3*96 // after the domain and α₁ β₁ δ₁
	wiresAt := aAt
	for _, n := range []int{len(s.PK.G1.A), len(s.PK.G1.B), len(s.PK.G1.Z), len(s.PK.G1.K)} {
		wiresAt += 4 + 96*n
	}
	wiresAt += 2*192 + 4 + 192*len(s.PK.G2.B)
	for _, c2 := range []struct {
		at    int
		bytes []byte
		want  string
	}{
		{aAt, []byte{0x40, 0, 0, 0}, "declares 1073741824 g1.a points"},
		{wiresAt, []byte{0, 0, 0, 0x10, 0, 0, 0, 0}, "declares 68719476736 wires"},
	} {
		restore := rewrite(t, pk, func(b []byte) { copy(b[c2.at:], c2.bytes) })
		want := `key file "` + pk + `" is corrupt (run prooflane setup --force to set the keys up again): ` + c2.want
		if _, err := c.Load(t.Context(), "chain", 64); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load: error %v, want %q", err, want)
		}
		restore()
	}
	if _, err := c.Load(t.Context(), "chain", 64); err != nil {
		t.Errorf("intact key: %v", err)
	}
}

// A prover that finds the keys' lock held by another process's setup says
// so before blocking, instead of hanging silently for minutes; once the
// lock is free it goes on.
func TestLoadOrSetupSaysWhenItWaitsForAnotherProcess(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	release, err := lockFile(t.Context(), c.lockPath("chain", 64), true, func() { t.Error("the test's own lock had to wait") })
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	done := make(chan error, 1)
	go func() {
		_, err := c.LoadOrSetup(context.Background(), "chain", 64, &log)
		done <- err
	}()
	want := `waiting for another process setting up circuit "chain" size 64 (lock ` + c.lockPath("chain", 64) + ")"
	waitFor(t, &log, want)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "running setup") {
		t.Errorf("no setup after the lock was released:\n%s", log.String())
	}
}

func TestHeartbeatReportsUntilStopped(t *testing.T) {
	var log syncBuffer
	stop := heartbeat(&log, time.Millisecond, "setup of circuit \"chain\" size 64")
	waitFor(t, &log, `setup of circuit "chain" size 64: still running after `)
	stop()
	n := len(log.String())
	time.Sleep(20 * time.Millisecond)
	if len(log.String()) != n {
		t.Error("heartbeat wrote after stop returned")
	}
}

// waitFor polls log until it contains want, failing after a minute.
func waitFor(t *testing.T, log *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(log.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("log never said %q:\n%s", want, log.String())
		}
	}
}

// rewrite changes the content of a cache file with mutate and writes it
// back with a checksum that matches the new content (what a buggy writer
// would leave), so what is tested is the check behind the checksum. It
// returns a function putting the original file back.
func rewrite(t *testing.T, path string, mutate func([]byte)) (restore func()) {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(nil), orig[:len(orig)-trailerLen]...)
	mutate(b)
	if err := os.WriteFile(path, append(b, keyfile.Trailer(b)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// offsets returns about n byte offsets spread over a file of size bytes,
// with the first and last bytes and the issue's byte 600.
func offsets(size, n int) []int {
	out := []int{0, size - 1}
	if size > 600 {
		out = append(out, 600)
	}
	for i := 1; i < n; i++ {
		out = append(out, i*size/n)
	}
	return out
}

// One flipped byte anywhere in a key file of the cache (the constraint
// system, the proving key, the verifying key, or the trailer) fails Load
// with the file named and setup --force as the fix: without the checksum
// nine of ten flips in a proving key loaded and made invalid proofs, and
// a flip in the constraint system read as an unsatisfied constraint.
func TestAnyFlippedByteOfAKeyFileIsCaughtAtLoad(t *testing.T) {
	_, c := savedChain(t)
	rp, pp, vp := c.Paths("chain", 64)
	for _, path := range []string{rp, pp, vp} {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range offsets(len(orig), 40) {
			b := append([]byte(nil), orig...)
			b[at] ^= 0x5a
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := c.Load(t.Context(), "chain", 64)
			want := `key file "` + path + `" is corrupt (run prooflane setup --force to set the keys up again): `
			if err == nil || !strings.Contains(err.Error(), want) || errors.Is(err, ErrNotCached) {
				t.Errorf("%s byte %d of %d flipped: error %v, want %q", filepath.Base(path), at, len(b), err, want)
			}
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Load(t.Context(), "chain", 64); err != nil {
		t.Errorf("intact keys: %v", err)
	}
}

// The issue's reproduction, at its size: byte 600 of chain-4096.pk.
func TestIssueReproductionByte600OfChain4096PK(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2^12 setup")
	}
	s, err := Setup("chain", 4096)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: t.TempDir()}
	if err := c.Save(s); err != nil {
		t.Fatal(err)
	}
	_, pk, _ := c.Paths("chain", 4096)
	b, err := os.ReadFile(pk)
	if err != nil {
		t.Fatal(err)
	}
	b[600] ^= 0x5a
	if err := os.WriteFile(pk, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := `key file "` + pk + `" is corrupt (run prooflane setup --force to set the keys up again): checksum mismatch`
	if _, err := c.Load(t.Context(), "chain", 4096); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// A cache written before key files had a checksum is refused with the
// same advice, not read unchecked.
func TestAKeyFileWithoutAChecksumIsRefused(t *testing.T) {
	_, c := savedChain(t)
	_, pk, _ := c.Paths("chain", 64)
	b, err := os.ReadFile(pk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pk, b[:len(b)-trailerLen], 0o644); err != nil {
		t.Fatal(err)
	}
	want := `key file "` + pk + `" is corrupt (run prooflane setup --force to set the keys up again): no checksum trailer (written by a prooflane from before key files had one`
	if _, err := c.Load(t.Context(), "chain", 64); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// A --vk file may be the cache's own (with a trailer, checked) or plain
// gnark serialization (a proof directory's vk.bin).
func TestReadVKReadsPlainAndChecksummedFiles(t *testing.T) {
	s, c := savedChain(t)
	_, _, vk := c.Paths("chain", 64)
	if _, err := ReadVK(vk); err != nil {
		t.Errorf("the cache's file: %v", err)
	}
	var plain bytes.Buffer
	if _, err := s.VK.WriteTo(&plain); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "vk.bin")
	if err := os.WriteFile(p, plain.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVK(p); err != nil {
		t.Errorf("a plain file: %v", err)
	}
	b, _ := os.ReadFile(vk)
	b[100] ^= 1
	os.WriteFile(vk, b, 0o644)
	if _, err := ReadVK(vk); err == nil || !strings.Contains(err.Error(), `key file "`+vk+`" is corrupt: checksum mismatch`) {
		t.Errorf("a flipped bit in the cache's file: %v", err)
	}
}

// The temporary files of a setup killed while writing are removed by the
// next save, which holds the lock; other files are left alone.
func TestSaveRemovesTheTemporaryFilesOfAKilledSetup(t *testing.T) {
	s, c := savedChain(t)
	rp, pp, vp := c.Paths("chain", 64)
	left := []string{pp + ".tmp123", vp + ".tmp9", rp + ".tmp77"}
	keep := []string{filepath.Join(c.Dir, "chain-640.pk.tmp1"), filepath.Join(c.Dir, "notes.tmp1")}
	for _, f := range append(slices.Clone(left), keep...) {
		if err := os.WriteFile(f, []byte("half a key"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(s); err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", filepath.Base(f), err)
		}
	}
	for _, f := range keep {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s of another circuit or size was touched: %v", filepath.Base(f), err)
		}
	}
}

// A cancelled context stops waiting for a setup at once, and the cache
// stays empty.
func TestLoadOrSetupStopsWhenCancelled(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	_, err := c.LoadOrSetup(ctx, "chain", 64, io.Discard)
	want := `setup of circuit "chain" size 64 stopped, no keys written: interrupt signal received`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	rp, pp, vp := c.Paths("chain", 64)
	for _, f := range []string{rp, pp, vp} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s written after a cancel (%v)", filepath.Base(f), err)
		}
	}
}

// A save killed between two files leaves keys without a constraint
// system (save writes it last): LoadOrMake sets them up again. A
// constraint system whose proving key has gone is refused, naming the
// missing file, and nothing is overwritten.
func TestLoadOrMakeRedoesAnUnfinishedSaveAndRefusesAMissingKey(t *testing.T) {
	s, c := savedChain(t)
	rp, pp, _ := c.Paths("chain", 64)
	setup := func() (*Set, error) { return s, nil }

	if err := os.Remove(rp); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if _, err := c.LoadOrMake(t.Context(), "chain", 64, &log, setup); err != nil {
		t.Fatalf("keys without their constraint system: %v", err)
	}
	if !strings.Contains(log.String(), "running setup (once)") {
		t.Fatalf("no setup over an unfinished save: %q", log.String())
	}

	if err := os.Remove(pp); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	_, err := c.LoadOrMake(t.Context(), "chain", 64, &log, setup)
	if !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), pp) {
		t.Fatalf("a constraint system without its proving key: %v, want %s not cached", err, pp)
	}
	if strings.Contains(log.String(), "running setup") {
		t.Fatalf("a setup ran over a constraint system: %q", log.String())
	}
}

// Load names a file that is missing or cut short before decoding the
// others: with the proving key cut short, its error names the proving
// key even though the constraint system (decoded first) has a flipped
// byte.
func TestLoadNamesAFileCutShortBeforeDecodingAny(t *testing.T) {
	_, c := savedChain(t)
	rp, pp, _ := c.Paths("chain", 64)
	b, err := os.ReadFile(rp)
	if err != nil {
		t.Fatal(err)
	}
	b[40] ^= 1
	if err := os.WriteFile(rp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(pp, 1000); err != nil {
		t.Fatal(err)
	}
	want := `key file "` + pp + `" is corrupt (run prooflane setup --force to set the keys up again): no checksum trailer`
	if _, err := c.Load(t.Context(), "chain", 64); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	if err := os.Remove(pp); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(t.Context(), "chain", 64); !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), pp) {
		t.Errorf("error %v, want %s not cached", err, pp)
	}
}
