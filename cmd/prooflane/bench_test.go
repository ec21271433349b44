package main

import (
	"context"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
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
	// Each layout warms up with a job as large as a timed one by default.
	if n := strings.Count(stderr, "warm-up job of 2 partition(s)"); n != 2 {
		t.Errorf("%d warm-up jobs of --partitions' 2 partitions, want one a layout:\n%s", n, stderr)
	}
	if rc, _, stderr := prooflane(t, "bench", "--warmup", "-1", "--circuit", "chain", "--size", "2^8", "--keys", keysDir, "groth16"); rc != 2 || !strings.Contains(stderr, "--warmup -1") {
		t.Errorf("--warmup -1: exit %d, want 2 with a message naming it:\n%s", rc, stderr)
	}

	// The same comparison as JSON, on the cached keys, each layout's
	// timed jobs written as a trace that analyze and simulate read.
	traces := filepath.Join(t.TempDir(), "traces")
	rc, out, stderr = prooflane(t, "bench", "--json", "--trace-dir", traces, "--circuit", "chain", "--size", "2^8", "--keys", keysDir,
		"--partitions", "2", "--jobs", "1", "--inflight", "1", "--gnark", "1", "--warmup", "1", "groth16")
	if rc != 0 {
		t.Fatalf("--json: exit %d:\n%s", rc, stderr)
	}
	if !strings.Contains(stderr, "warm-up job of 1 partition(s)") {
		t.Errorf("--warmup 1: no warm-up job of 1 partition:\n%s", stderr)
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
	trace := filepath.Join(traces, "groth16.jsonl")
	if rc, out, stderr := prooflane(t, "analyze", "--json", trace); rc != 0 || !strings.Contains(out, `"bench-1"`) || strings.Contains(out, `"warmup"`) {
		t.Errorf("analyze of bench's trace (want job bench-1, no warm-up): exit %d\n%s\n%s", rc, out, stderr)
	}
	// A folder that cannot be made is refused before any proof.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, _, stderr := prooflane(t, "bench", "--trace-dir", filepath.Join(blocker, "traces"), "--circuit", "chain", "--size", "2^8", "--keys", keysDir, "groth16"); rc == 0 || !strings.Contains(stderr, "--trace-dir") || strings.Contains(stderr, "every one verified") {
		t.Errorf("--trace-dir under a file: exit %d\n%s", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, "simulate", "--from", trace, "--pipeline", "groth16-single-lock", "--speed", "20"); rc != 0 {
		t.Errorf("simulate from bench's trace: exit %d\n%s", rc, stderr)
	}
}

// A family.Prover's pipeline is benched like Groth16's, on its own key,
// each proof checked by Job.Verify; there is no baseline prover for it.
func TestBenchOfAFamilyRegisteredInATestWithEveryProofVerified(t *testing.T) {
	pipeline := withToyFamily(t)
	keysDir := t.TempDir()
	rc, out, stderr := prooflane(t, "bench", "--size", "2^8", "--keys", keysDir,
		"--partitions", "2", "--jobs", "2", "--inflight", "2", pipeline)
	if rc != 0 {
		t.Fatalf("exit %d:\n%s", rc, stderr)
	}
	if !strings.Contains(out, "| toy ") || !strings.Contains(stderr, "bench: toy: 4 proofs in") || strings.Count(stderr, "every one verified") != 1 ||
		!strings.Contains(stderr, ", backend cpu, 1 device\n") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, stderr)
	}
	rc, out, stderr = prooflane(t, "bench", "--json", "--size", "2^8", "--keys", keysDir,
		"--partitions", "2", "--jobs", "1", "--inflight", "1", pipeline)
	if rc != 0 {
		t.Fatalf("--json: exit %d:\n%s", rc, stderr)
	}
	var got benchOutput
	decodeStrict(t, out, &got)
	if got.Circuit != "chain" || got.Size != 256 || len(got.Rows) != 1 {
		t.Fatalf("%+v", got)
	}
	if r := got.Rows[0]; r.Baseline || r.Layout != "toy" || r.Proofs != 2 || r.VsGnark != nil || r.GPUBusyPct == nil {
		t.Errorf("row: %+v", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gnark", "1", pipeline}, `--gnark: pipeline "toy" is of the toy family, which has no baseline prover to time`},
		{[]string{pipeline, "groth16"}, `pipeline "groth16" is of the groth16 family, "toy" before it of the toy family: bench compares the layouts of one family on the same keys`},
	} {
		args := append([]string{"bench", "--size", "2^8", "--keys", keysDir}, c.args...)
		if rc, _, stderr := prooflane(t, args...); rc == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, rc, stderr, c.want)
		}
	}
}

// The family verifier bench uses refuses a partition's output that is not
// its proof, and one with no final proof stage output.
func TestBenchFamilyVerifierRefusesAnotherPartitionsProof(t *testing.T) {
	pipeline := withToyFamily(t)
	p, err := loadPipeline(pipeline, setFlags{})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := proofFamily(p)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := workloads.System(ecc.BLS12_381, "chain", 256)
	if err != nil {
		t.Fatal(err)
	}
	k, err := pp.Family.Setup(context.Background(), family.KeyRequest{Dir: t.TempDir(), System: sys}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	fj, err := workloads.Job(k, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	j := fj.Payload().(toyJob)
	verify := familyVerifier(pp, fj)
	proof0 := j.key.vk.proof(j.public[0])
	if err := verify(0, map[string]any{pp.Final: proof0}); err != nil {
		t.Fatalf("partition 0's own proof: %v", err)
	}
	if err := verify(1, map[string]any{pp.Final: proof0}); err == nil {
		t.Error("partition 0's proof verified as partition 1's")
	}
	if err := verify(0, map[string]any{"other": proof0}); err == nil || !strings.Contains(err.Error(), "produced no toy proof") {
		t.Errorf("no final stage output: %v", err)
	}
}
