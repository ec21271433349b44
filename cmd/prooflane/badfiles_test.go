//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prooflane/prooflane/internal/keyfile"
)

// Files a user or the key cache hands prooflane that are wrong on
// purpose or by accident: a constraint system whose bytes changed under a
// valid checksum, a FIFO where a key or pipeline should be, a symbolic
// link planted at a lock file. Each is refused by name with exit 1,
// never a panic or a hang; and a prove stuck waiting still ends on
// SIGTERM.

// promptly runs prooflane with args in this process and fails the test
// if it has not returned within a minute (opening a FIFO used to block
// for ever).
func promptly(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		rc             int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		rc, stdout, stderr := prooflane(t, args...)
		done <- result{rc, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.rc, r.stdout, r.stderr
	case <-time.After(time.Minute):
		t.Fatalf("prooflane %v: still running after a minute", args)
		return 0, "", ""
	}
}

// mkfifo replaces path with a FIFO nothing writes to.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// unchanged fails the test unless dir holds what before (a snapshot)
// does, and no failed run was left beside it.
func unchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	if len(after) != len(before) {
		t.Errorf("%s: %d files after, %d before", dir, len(after), len(before))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("%s: %s changed", dir, name)
		}
	}
	if _, err := os.Stat(dir + ".failed"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s.failed: %v, want none", dir, err)
	}
}

// corruptR1CS sets a word of the cached constraint system of chain at
// 2^8 that gnark's decoder reads on a goroutine of its own (the length of
// the first level's stream: 2^62 passes its bounds check by overflowing
// and then panics in make), and writes the checksum trailer of the new
// bytes.
func corruptR1CS(t *testing.T, keysDir string) string {
	t.Helper()
	rp := filepath.Join(keysDir, "chain-256.r1cs")
	b, err := os.ReadFile(rp)
	if err != nil {
		t.Fatal(err)
	}
	b = b[:len(b)-keyfile.TrailerLen]
	const firstLevel = 32 + 32 + 8 // the headers, the count of levels
	binary.LittleEndian.PutUint64(b[firstLevel:], 1<<62)
	if err := os.WriteFile(rp, append(b, keyfile.Trailer(b)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return rp
}

// A constraint system corrupt under a valid checksum fails prove with
// exit 1 naming the file, and the output directory keeps its previous
// run; before, gnark's decoder panicked on a goroutine of its own and
// prove died with exit 2.
func TestProveOfAConstraintSystemCorruptUnderItsChecksumFailsNamingIt(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	before := snapshot(t, out)
	rp := corruptR1CS(t, keysDir)
	rc, stdout, stderr := promptly(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain",
		"--size", "2^8", "--partitions", "3", "--out", out, "--keys", keysDir, "--progress", "off")
	if want := `key file "` + rp + `" is corrupt (run prooflane setup --force to set the keys up again): `; rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", rc, stderr, want)
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	unchanged(t, out, before)
}

// A FIFO in place of a key cache file, as verify's --vk, or as a
// pipeline is refused at once, naming it, with exit 1 (opening it used to
// block prove and verify for ever, holding prove's locks).
func TestAFIFOInPlaceOfAKeyOrPipelineIsRefusedAtOnce(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	before := snapshot(t, out)
	vk := filepath.Join(t.TempDir(), "vk.bin")
	mkfifo(t, vk)
	pipeline := filepath.Join(t.TempDir(), "p.yaml")
	mkfifo(t, pipeline)
	for _, f := range []string{"chain-256.pk", "chain-256.r1cs", "chain-256.vk"} {
		path := filepath.Join(keysDir, f)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mkfifo(t, path)
		rc, _, stderr := promptly(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain",
			"--size", "2^8", "--partitions", "3", "--out", out, "--keys", keysDir, "--progress", "off")
		if want := path + ": a named pipe, not a regular file"; rc != 1 || !strings.Contains(stderr, want) {
			t.Errorf("prove with %s a FIFO: exit %d, stderr %q; want exit 1 and %q", f, rc, stderr, want)
		}
		unchanged(t, out, before)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--vk", vk, out}, vk + ": a named pipe, not a regular file"},
		{[]string{"validate", pipeline}, pipeline + ": a named pipe, not a regular file"},
		{[]string{"prove", "--pipeline", pipeline, "--out", t.TempDir() + "/o", "--keys", keysDir}, pipeline + ": a named pipe, not a regular file"},
	} {
		if rc, _, stderr := promptly(t, c.args...); rc != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args, rc, stderr, c.want)
		}
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 {
		t.Errorf("the cache put back: verify exit %d\n%s%s", rc, stdout, stderr)
	}
}

// A symbolic link planted at --out's lock file (.D.lock) is refused,
// naming it, and its target is not created; so is one at a key cache
// entry's lock file.
func TestALinkPlantedAtALockFileIsRefusedAndItsTargetNotCreated(t *testing.T) {
	dir := t.TempDir()
	out, keysDir := filepath.Join(dir, "D"), t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	lock := filepath.Join(dir, ".D.lock")
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^8",
		"--partitions", "1", "--out", out, "--keys", keysDir, "--progress", "off"}
	if rc, _, stderr := prooflane(t, args...); rc != 1 || !strings.Contains(stderr, lock+": a symbolic link, not a regular file") {
		t.Errorf("--out lock a link: exit %d, stderr %q", rc, stderr)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	keyLock := filepath.Join(keysDir, "chain-256.lock")
	if err := os.Symlink(target, keyLock); err != nil {
		t.Fatal(err)
	}
	if rc, _, stderr := prooflane(t, args...); rc != 1 || !strings.Contains(stderr, keyLock+": a symbolic link, not a regular file") {
		t.Errorf("key cache lock a link: exit %d, stderr %q", rc, stderr)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created (%v)", err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--out was made (%v)", err)
	}
}

// A prove waiting for something slow (here another process's key setup,
// whose lock this test holds) ends on SIGTERM within a minute or two,
// with exit 1, releasing --out's lock.
func TestSIGTERMEndsAProveWaitingOnTheKeyCache(t *testing.T) {
	dir, keysDir := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "D")
	release, err := keyfile.Lock(t.Context(), filepath.Join(keysDir, "chain-256.lock"), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROOFLANE_TEST_ARGS="+strings.Join([]string{"prove", "--pipeline", "../../pipelines/groth16.yaml",
		"--circuit", "chain", "--size", "2^8", "--partitions", "1", "--out", out, "--keys", keysDir, "--progress", "off"}, "\x1f"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen bytes.Buffer
	r := bufio.NewReader(stderr)
	for !strings.Contains(seen.String(), "waiting for another process setting up") {
		b, err := r.ReadByte()
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("prove did not wait for the key cache (%v):\n%s", err, seen.String())
		}
		seen.WriteByte(b)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		r.WriteTo(&b)
		rest <- b.String()
	}()
	select {
	case s := <-rest:
		seen.WriteString(s)
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("prove still running 2 minutes after SIGTERM:\n%s", seen.String())
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1\n%s", err, seen.String())
	}
	unlock, err := lockOut(filepath.Join(dir, ".D.lock"))
	if err != nil {
		t.Fatalf("--out's lock is still held: %v", err)
	}
	unlock()
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--out was made (%v)", err)
	}
}

// A --set mistake (malformed, an unknown parameter, a stage.param name,
// a value no parameter takes) is a usage mistake: exit 2 naming the flag,
// before any work. (bench sets partitions from its own --partitions.)
func TestSetMistakesAreUsageMistakes(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "o")
	for _, set := range []string{"nosuch", "nosuch=1", "synthesize.workers=3", "partitions=${x}", "partitions=0"} {
		for _, args := range [][]string{
			{"prove", "--out", out, "--keys", keysDir, "--set", set},
			{"bench", "--keys", keysDir, "--set", set, "groth16"},
			{"run", "--set", set, "sim-groth16"},
			{"validate", "--set", set, "groth16"},
		} {
			if args[0] == "bench" && strings.HasPrefix(set, "partitions=") {
				continue
			}
			rc, stdout, stderr := prooflane(t, args...)
			if rc != 2 || !strings.Contains(stderr, "-set") || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming --set", args, rc, stdout, stderr)
			}
		}
	}
	if entries, _ := os.ReadDir(keysDir); len(entries) != 0 {
		t.Errorf("a refused --set made keys: %v", entries)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused --set made --out (%v)", err)
	}
}
