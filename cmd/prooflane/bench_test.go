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

	// The same comparison as JSON, on the cached keys.
	rc, out, stderr = prooflane(t, "bench", "--json", "--circuit", "chain", "--size", "2^8", "--keys", keysDir,
		"--partitions", "2", "--jobs", "1", "--inflight", "1", "--gnark", "1", "groth16")
	if rc != 0 {
		t.Fatalf("--json: exit %d:\n%s", rc, stderr)
	}
	var got benchOutput
	decodeStrict(t, out, &got)
	if got.Circuit != "chain" || got.Size != 256 || got.Partitions != 2 || got.Backend != "cpu" || len(got.Rows) != 2 {
		t.Fatalf("%+v", got)
	}
	g, p := got.Rows[0], got.Rows[1]
	if !g.Baseline || g.GPUBusyPct != nil || g.Proofs != 1 || g.VsGnark == nil || *g.VsGnark != 1 {
		t.Errorf("gnark row: %+v", g)
	}
	if p.Baseline || p.Layout != "groth16" || p.Proofs != 2 || p.GPUBusyPct == nil || p.SPerProof <= 0 || p.PeakRSSBytes == 0 {
		t.Errorf("pipeline row: %+v", p)
	}
	if _, ok := p.MeanLockWaitMS["gpu.0.compute"]; !ok {
		t.Errorf("pipeline row has no mean wait of gpu.0.compute: %v", p.MeanLockWaitMS)
	}
}
