package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// TestMain runs the command itself when PROOFLANE_TEST_ARGS is set, so a
// test can start it as a process of its own and signal it.
func TestMain(m *testing.M) {
	if args := os.Getenv("PROOFLANE_TEST_ARGS"); args != "" {
		os.Exit(mainRC(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// SIGTERM (what systemd and Kubernetes send) and SIGHUP (a closed
// terminal) stop a run like Ctrl-C: the job is cancelled, the exit code is
// 1, and the trace file is written with the job marked failed, instead of
// the process dying mid-write (SIGHUP left a 0-byte trace).
func TestSIGTERMCancelsTheRunAndKeepsItsTrace(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) { signalCancelsRun(t, sig) })
	}
}

func signalCancelsRun(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	pipeline := writeFile(t, dir, "long.yaml", `pipeline: long
params: {partitions: 2}
stages:
  wait: {type: sim.sleep, workers: 2, config: {duration: 1h}}
`)
	trace := filepath.Join(dir, "trace.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROOFLANE_TEST_ARGS="+strings.Join(
		[]string{"run", "--progress", "on", "--trace", "file", "--trace-file", trace, pipeline}, "\x1f"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The progress line starts after the signal handler is in place.
	var seen strings.Builder
	r := bufio.NewReader(stderr)
	for !strings.Contains(seen.String(), "partitions 0/2") {
		b, err := r.ReadByte()
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("no progress line before %v:\n%s", err, seen.String())
		}
		seen.WriteByte(b)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		bufio.NewReader(r).WriteTo(&b)
		rest <- b.String()
	}()
	var out string
	select {
	case out = <-rest:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("still running 2 minutes after %v", sig)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1\n%s", err, out)
	}
	if !strings.Contains(out, "cancelled") {
		t.Errorf("stderr does not say the job was cancelled:\n%s", out)
	}
	spans, err := tracefile.Read(trace)
	if err != nil {
		t.Fatal(err)
	}
	failedJob := false
	for _, s := range spans {
		if s.Str("prooflane.kind") == "job" && s.Status == tracefile.StatusError {
			failedJob = true
		}
	}
	if !failedJob {
		t.Errorf("the trace has no failed job span (%d spans)", len(spans))
	}
}
