package main

import (
	"strings"
	"testing"
)

func TestBenchComparesLayoutsAndGnarkWithEveryProofVerified(t *testing.T) {
	keysDir := t.TempDir()
	rc, out, stderr := prooflane(t, "bench", "--circuit", "chain", "--size", "2^8", "--keys", keysDir,
		"--partitions", "2", "--jobs", "2", "--inflight", "2", "--gnark", "2",
		"../../pipelines/groth16.yaml", "../../pipelines/groth16-single-lock.yaml")
	if rc != 0 {
		t.Fatalf("exit %d:\n%s", rc, stderr)
	}
	for _, want := range []string{"| gnark groth16.Prove (CPU, sequential)", "| groth16 ", "| groth16-single-lock ", "gpu.0.compute", "gpu.0.lock"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(stderr, "every one verified"); n != 2 {
		t.Errorf("%d pipelines reported verified proofs, want 2:\n%s", n, stderr)
	}
}
