//go:build unix

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// cli is the command run as a process of its own (see TestMain).
func cli(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROOFLANE_TEST_ARGS="+strings.Join(args, "\x1f"))
	return cmd
}

// buildCLI builds the command without the race detector (a run under it
// takes ten times as long) and returns a function making a command of it.
func buildCLI(t *testing.T) func(args ...string) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prooflane")
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if b, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return func(args ...string) *exec.Cmd { return exec.Command(bin, args...) }
}

// checkCompleteRun checks that out holds exactly the files of a run of n
// partitions, that they verify, and that the trace is whole.
func checkCompleteRun(t testing.TB, out, keysDir string, n int) {
	t.Helper()
	want := []string{"manifest.json"}
	for i := range n {
		want = append(want, proofFile(i), publicFile(i))
	}
	want = append(want, "trace.jsonl", "vk.bin")
	slices.Sort(want)
	if got := dirNames(t, out); got != strings.Join(want, " ") {
		t.Errorf("%s holds %s, want %s", out, got, strings.Join(want, " "))
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all ") {
		t.Errorf("verify %s: exit %d\n%s%s", out, rc, stdout, stderr)
	}
	if _, err := tracefile.Read(filepath.Join(out, "trace.jsonl")); err != nil {
		t.Errorf("trace: %v", err)
	}
}

// The chaos test: prove killed with SIGKILL at random points over
// an earlier run's directory leaves --out holding one complete run that
// verifies, or the earlier run byte for byte; before, a killed run left
// proofs of two runs beside the older manifest, and verify passed them.
// Then a SIGTERM mid-run: --out unchanged, the failed run's trace kept
// beside it.
func TestProveKilledAtAnyPointLeavesOneCompleteRunOrTheEarlierOne(t *testing.T) {
	if testing.Short() {
		t.Skip("20 proves of 2^12 in processes of their own")
	}
	keysDir, parent := t.TempDir(), t.TempDir()
	out := filepath.Join(parent, "out")
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--size", "2^12", "--partitions", "4",
		"--out", out, "--keys", keysDir, "--progress", "off"}
	cli := buildCLI(t)
	if b, err := cli(args...).CombinedOutput(); err != nil {
		t.Fatalf("the earlier run (with the key setup): %v\n%s", err, b)
	}
	checkCompleteRun(t, out, keysDir, 4)

	// How long a whole run takes here, in a process of its own.
	began := time.Now()
	if b, err := cli(args...).CombinedOutput(); err != nil {
		t.Fatalf("prove: %v\n%s", err, b)
	}
	whole := time.Since(began)
	checkCompleteRun(t, out, keysDir, 4)
	prev := snapshot(t, out)

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 19))
	kept, replaced, aside := 0, 0, 0
	for trial := range 20 {
		delay := time.Duration(rng.Int64N(int64(whole) * 3 / 2))
		// Each trial proves another seed: a directory mixing two runs
		// would not verify against either manifest.
		cmd := cli(append(args, "--seed", fmt.Sprint(100+trial))...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Kill()
		cmd.Wait()
		now := snapshot(t, out)
		switch {
		case now == nil:
			// Killed between the two renames of the fall-back swap: the
			// earlier run is set aside whole, and the next prove puts it
			// back.
			if old := snapshot(t, filepath.Join(parent, ".out.old")); !maps.Equal(old, prev) {
				t.Fatalf("trial %d (killed after %v, seed %d): no --out, and .out.old is not the earlier run", trial, delay, seed)
			}
			aside++
		case maps.Equal(now, prev):
			kept++
		default:
			checkCompleteRun(t, out, keysDir, 4)
			if t.Failed() {
				t.Fatalf("trial %d (killed after %v, seed %d): --out is neither the earlier run nor a complete one", trial, delay, seed)
			}
			prev = now
			replaced++
		}
	}
	t.Logf("20 kills within %v (seed %d): %d left the earlier run, %d a new complete run, %d the earlier run set aside", whole*3/2, seed, kept, replaced, aside)

	// SIGTERM while the job runs: exit 1, --out unchanged (after the
	// recovery of any run set aside above), the trace kept in out.failed.
	if aside > 0 {
		if b, err := cli(args...).CombinedOutput(); err != nil {
			t.Fatalf("prove: %v\n%s", err, b)
		}
		prev = snapshot(t, out)
	}
	long := append(append([]string(nil), args...), "--partitions", "64", "--progress", "on")
	cmd := cli(long...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "partitions 0/64") {
		b, err := r.ReadByte()
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("no progress line before %v:\n%s", err, seen.String())
		}
		seen.WriteByte(b)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1\n%s", err, rest)
	}
	if !maps.Equal(snapshot(t, out), prev) {
		t.Error("a run stopped by SIGTERM changed --out")
	}
	if want := "the failed run's files (its trace) are in " + out + ".failed; " + out + " is unchanged"; !strings.Contains(string(rest), want) {
		t.Errorf("stderr lacks %q:\n%s", want, rest)
	}
	if _, err := tracefile.Read(filepath.Join(out+".failed", "trace.jsonl")); err != nil {
		t.Errorf("the failed run's trace: %v", err)
	}
}

// Three provers started into one --out: the first holds the lock (here
// while it waits for the keys, locked by the test), the other two are
// refused at once with the lock's message and write nothing; the first
// then completes a run that verifies, with a trace that parses. Before,
// all three exited 0 and the trace was interleaved.
func TestConcurrentProvesIntoOneOutOneWinsTheOthersAreRefused(t *testing.T) {
	keysDir, parent := t.TempDir(), t.TempDir()
	out := filepath.Join(parent, "out")
	if rc, _, stderr := prooflane(t, "setup", "--size", "2^8", "--keys", keysDir); rc != 0 {
		t.Fatalf("setup: %s", stderr)
	}
	f, err := os.OpenFile(filepath.Join(keysDir, "chain-256.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--size", "2^8", "--partitions", "3",
		"--out", out, "--keys", keysDir, "--progress", "off"}
	first := cli(args...)
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, "waiting for another process setting up") {
		first.Process.Kill()
		t.Fatalf("first prover: %q, %v; want it waiting for the keys", line, err)
	}
	var wg sync.WaitGroup
	outputs := make([]string, 2)
	errs := make([]error, 2)
	for i := range outputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := cli(args...).CombinedOutput()
			outputs[i], errs[i] = string(b), err
		}()
	}
	wg.Wait()
	want := `prooflane prove: --out "` + out + `": another prooflane prove is writing it (it holds the lock ` +
		filepath.Join(parent, ".out.lock") + "); wait for it to end, or give another --out\n"
	for i := range outputs {
		var exit *exec.ExitError
		if !errors.As(errs[i], &exit) || exit.ExitCode() != 1 || outputs[i] != want {
			t.Errorf("prover %d: %v, output %q; want exit 1 and %q", i+2, errs[i], outputs[i], want)
		}
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	rest, _ := io.ReadAll(r)
	if err := first.Wait(); err != nil {
		t.Fatalf("first prover: %v\n%s", err, rest)
	}
	checkCompleteRun(t, out, keysDir, 3)
}

// Ctrl-C during a setup exits 1 saying the setup stopped and wrote
// nothing; it used to die of the signal (exit 130) without a word.
func TestSetupInterruptedExitsOneWithAMessage(t *testing.T) {
	keysDir := t.TempDir()
	cmd := cli("setup", "--size", "2^20", "--keys", keysDir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	if strings.Contains(line, "of host memory") { // the memory estimate comes first
		line, err = r.ReadString('\n')
	}
	if err != nil || !strings.Contains(line, `setting up circuit "chain" size 1048576 (Ctrl-C stops it, writing nothing)`) {
		cmd.Process.Kill()
		t.Fatalf("setup said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1\n%s", err, rest)
	}
	want := "prooflane setup: setup of circuit \"chain\" size 1048576 stopped, no keys written: interrupt signal received\n"
	if string(rest) != want {
		t.Errorf("stderr %q, want %q", rest, want)
	}
	if names := dirNames(t, keysDir); strings.Contains(names, ".pk") || strings.Contains(names, ".vk") || strings.Contains(names, ".r1cs") {
		t.Errorf("key files written: %s", names)
	}
}
