package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// submit --await --out writes the directory await --out writes, and
// verify accepts it; status then shows the worker's admitted memory and
// its budget (the machine's, by default) in units, not bytes.
func TestSubmitAwaitWritesADirectoryVerifyAcceptsAndStatusShowsSizes(t *testing.T) {
	keysDir := t.TempDir()
	url := testService(t, keysDir, nil)
	out := filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr := prooflane(t, "submit", "--addr", url, "--size", "64", "--partitions", "2", "--seed", "3",
		"--await", "--keys", keysDir, "--out", out)
	if rc != 0 || !strings.Contains(stdout, "2 proofs, verified with ") {
		t.Fatalf("submit --await: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
		t.Errorf("verify of what submit --await wrote: exit %d\n%s%s", rc, stdout, stderr)
	}
	rc, stdout, stderr = prooflane(t, "status", "--addr", url)
	worker := regexp.MustCompile(`(?m)^worker w1 \(cpu\): 0 of 1 running, [0-9]+ keys, admitted [0-9.]+ MiB of [0-9.]+ [MG]iB$`)
	if rc != 0 || !worker.MatchString(stdout) {
		t.Errorf("status: exit %d, want a line matching %s:\n%s%s", rc, worker, stdout, stderr)
	}
}

// A worker with no budget reports 0: status says so rather than "of 0".
func TestAdmittedSaysSizesAndNoBudget(t *testing.T) {
	for _, c := range []struct {
		bytes, budget uint64
		want          string
	}{
		{37748736, 0, "admitted 36 MiB, no budget"},
		{37748736, 16 << 30, "admitted 36 MiB of 16.0 GiB"},
		{0, 512 << 20, "admitted 0 MiB of 512 MiB"},
	} {
		if got := admitted(c.bytes, c.budget); got != c.want {
			t.Errorf("admitted(%d, %d) = %q, want %q", c.bytes, c.budget, got, c.want)
		}
	}
}
