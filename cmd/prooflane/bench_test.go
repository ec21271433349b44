package main

import (
	"strings"
	"testing"
	"time"
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

func TestBusyFractionIsTheUnionOfComputeRuns(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	b := &busyRecorder{ivs: map[int][][2]time.Time{
		0: {{at(0), at(40)}, {at(20), at(60)}, {at(80), at(90)}}, // union 70 of 100
		1: {{at(50), at(150)}},                                   // clipped to 50 of 100
	}}
	if got := b.busyFraction(2, at(0), at(100)); got < 0.5999 || got > 0.6001 {
		t.Errorf("busy = %v, want 0.6 (0.7 and 0.5 averaged)", got)
	}
}
