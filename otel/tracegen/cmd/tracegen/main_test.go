package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/tracefile"
)

func TestWritesATraceWholeAndRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.jsonl")
	var stdout, stderr bytes.Buffer
	if rc := run([]string{"-spans", "500", "-devices", "3", "-o", out}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	spans, err := tracefile.Read(out)
	if err != nil || len(spans) < 500 || !strings.Contains(stdout.String(), "wrote "+out) {
		t.Errorf("%d spans, %v; stdout %q", len(spans), err, stdout.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the trace alone (no temporary left)", len(entries))
	}
	for _, args := range [][]string{{"-o", out}, {"-spans", "10"}, {"-spans", "10", "-devices", "100", "-o", out}, {"-spans", "x", "-o", out}, {"-spans", "10", "-o", out, "extra"}} {
		stderr.Reset()
		if rc := run(args, &stdout, &stderr); rc != 2 || !strings.Contains(stderr.String(), "tracegen") && !strings.Contains(stderr.String(), "invalid value") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and what is wrong", args, rc, stderr.String())
		}
	}
	if rc := run([]string{"-spans", "10", "-o", filepath.Join(dir, "no", "such", "dir.jsonl")}, &stdout, &stderr); rc != 1 {
		t.Errorf("unwritable path: exit %d, want 1", rc)
	}
}
