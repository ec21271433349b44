package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// prooflane runs the CLI in-process and returns its exit code and output.
func prooflane(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	rc := mainRC(args, &out, &errb)
	return rc, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateReportsEveryProblemAndExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "pipeline: x\nstages:\n  a: {type: sim.slep, lokcs: []}\n")
	rc, _, stderr := prooflane(t, "validate", bad, "../../pipelines/sim-groth16.yaml")
	if rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	for _, want := range []string{
		bad + `:3:13: stage "a": unknown stage type "sim.slep" (did you mean "sim.sleep"?)`,
		bad + `:3:23: stage "a": field "lokcs" not recognised (did you mean "locks"?)`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestShippedPipelinesValidate(t *testing.T) {
	files, _ := filepath.Glob("../../pipelines/*.yaml")
	if len(files) == 0 {
		t.Fatal("no shipped pipelines")
	}
	rc, out, stderr := prooflane(t, append([]string{"validate"}, files...)...)
	if rc != 0 {
		t.Fatalf("exit %d:\n%s%s", rc, out, stderr)
	}
}

func TestGraphDrawsStagesEdgesAndLocks(t *testing.T) {
	rc, out, stderr := prooflane(t, "graph", "--format", "mermaid", "../../pipelines/sim-groth16.yaml")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	for _, want := range []string{"flowchart LR", "prep_msm --> vram_stage", "locks: cpu_bandwidth×2", "workers: 2 per device"} {
		if !strings.Contains(out, want) {
			t.Errorf("mermaid output lacks %q:\n%s", want, out)
		}
	}
	rc, out, _ = prooflane(t, "graph", "../../pipelines/sim-groth16.yaml")
	if rc != 0 || !strings.Contains(out, `"vram_stage" -> "gpu_compute";`) {
		t.Errorf("dot output (exit %d):\n%s", rc, out)
	}
}

func TestRunWritesTraceAndPrintsSummary(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "tiny.yaml", `
pipeline: tiny
params: {partitions: 3}
resources:
  gpu.{gpu}.compute: {}
stages:
  prep: {type: sim.sleep, config: {duration: 1ms}}
  compute:
    type: sim.device
    needs: [prep]
    locks: ["gpu.{gpu}.compute"]
    config: {duration: 1ms}
`)
	trace := filepath.Join(dir, "t.jsonl")
	rc, out, stderr := prooflane(t, "run", "--jobs", "2", "--inflight", "2", "--trace-file", trace, "--progress", "off", p)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	if !strings.Contains(out, `pipeline "tiny": 2 jobs × 3 partitions`) || !strings.Contains(out, "gpu.0.compute") {
		t.Errorf("summary:\n%s", out)
	}
	spans, err := tracefile.Read(trace)
	if err != nil {
		t.Fatal(err)
	}
	// 2 jobs, 6 partitions, 12 stage spans at least.
	if n := len(spans); n < 20 {
		t.Errorf("trace has %d spans, want at least 20", n)
	}
}

func TestRunFailsWithStageAndPartition(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "fail.yaml", `
pipeline: fail
params: {partitions: 2}
stages:
  prep: {type: sim.sleep, config: {duration: 1ms, fail: {partitions: [1], message: boom}}}
`)
	rc, _, stderr := prooflane(t, "run", "--trace", "none", "--progress", "off", p)
	want := `prooflane run: job "job-1": partition 1: stage "prep" (sim.sleep) failed: boom (attempt 1): injected failure`
	if rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %s", rc, stderr, want)
	}
}

func TestRunRefusesStagesThatNeedAJobPayload(t *testing.T) {
	rc, _, stderr := prooflane(t, "run", "--trace", "none", "--progress", "off", "../../pipelines/groth16.yaml")
	want := `prooflane run: ../../pipelines/groth16.yaml: stage "synthesize" (groth16.synthesize) needs a job payload, a *groth16.Job (circuit, keys, one witness per partition): prove with ` + "`prooflane prove`"
	if rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %s", rc, stderr, want)
	}
}

// A count flag whose default 0 means "the pipeline's" must not read an
// explicit 0 or negative value as that default: the user asked for
// something impossible and is told so, naming the flag, before any work.
func TestExplicitCountsBelowOneAreRefusedNamingTheFlag(t *testing.T) {
	sim := "../../pipelines/sim-groth16.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--partitions", "0"}, "--partitions 0: want at least 1 (leave the flag out for the default: the pipeline's partitions parameter)"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", t.TempDir(), "--devices", "-1"}, "--devices -1: want at least 1"},
		{[]string{"run", "--devices", "0", sim}, "--devices 0: want at least 1"},
		{[]string{"run", "--partitions", "-2", sim}, "--partitions -2: want at least 1"},
		{[]string{"bench", "--keys", t.TempDir(), "--devices", "0", "../../pipelines/groth16.yaml"}, "--devices 0: want at least 1 (leave the flag out for the default: each pipeline's devices)"},
		{[]string{"simulate", "--from", "x.jsonl", "--pipeline", sim, "--in-flight", "0"}, "--in-flight 0: want at least 1"},
		{[]string{"simulate", "--from", "x.jsonl", "--pipeline", sim, "--devices", "0"}, "--devices 0: want at least 1 (leave the flag out for the default: the pipeline's devices)"},
	} {
		rc, out, stderr := prooflane(t, c.args...)
		if rc != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 (a usage error) and %q", c.args, rc, stderr, c.want)
		}
		if out != "" || strings.Contains(stderr, "setup") {
			t.Errorf("%v: did work before refusing: stdout %q stderr %q", c.args, out, stderr)
		}
	}
}

// A size below the circuit's minimum is a flag error naming --size, given
// before prove announces a key setup it cannot run.
func TestSizeBelowTheCircuitsMinimumIsAFlagError(t *testing.T) {
	keysDir := t.TempDir()
	for _, args := range [][]string{
		{"setup", "--circuit", "chain", "--size", "2^0", "--keys", keysDir},
		{"prove", "--circuit", "chain", "--size", "1", "--keys", keysDir, "--out", filepath.Join(t.TempDir(), "out")},
	} {
		rc, _, stderr := prooflane(t, args...)
		want := `--size ` + args[4] + `: circuit "chain" needs a size of at least 2`
		if rc != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "running setup") {
			t.Errorf("%s: exit %d, stderr %q, want exit 2 (a usage error) and %q", args[0], rc, stderr, want)
		}
	}
}

// -h says where prove writes its trace (next to the proofs, not the
// working directory's trace.jsonl that otel's flag defaults to), usage
// lines carry no trailing blank, and stray arguments are refused.
func TestHelpShowsProvesTraceDefaultAndStrayArgumentsAreRefused(t *testing.T) {
	rc, help, _ := prooflane(t, "prove", "-h")
	if rc != 0 {
		t.Fatalf("prove -h exited %d", rc)
	}
	if !strings.HasPrefix(help, "usage: prooflane prove [flags]\n") {
		t.Errorf("usage line %q", strings.SplitN(help, "\n", 2)[0])
	}
	if !strings.Contains(help, "(default: trace.jsonl in the --out directory)") || strings.Contains(help, `(default "trace.jsonl")`) {
		t.Errorf("prove -h misstates the trace file default:\n%s", help)
	}
	if rc, _, stderr := prooflane(t, "stages", "extra"); rc != 2 || !strings.Contains(stderr, `stages takes no arguments, got ["extra"]`) {
		t.Errorf("stages extra: exit %d, stderr %q", rc, stderr)
	}
}

// stages says which types work on the device and which keep it busy (the
// busy time analyze reports), from the factories' declarations.
func TestStagesMarkDeviceAndBusyTypes(t *testing.T) {
	rc, out, _ := prooflane(t, "stages")
	if rc != 0 {
		t.Fatalf("stages exited %d", rc)
	}
	want := map[string]string{"groth16.gpu_compute": "[device, busy]", "groth16.vram_stage": "[device]", "sim.device": "[device]", "groth16.synthesize": ""}
	for _, line := range strings.Split(out, "\n") {
		typ, _, _ := strings.Cut(line, " ")
		mark, ok := want[typ]
		if !ok {
			continue
		}
		delete(want, typ)
		if got := strings.HasSuffix(line, "[device, busy]") || strings.HasSuffix(line, "[device]"); got != (mark != "") || (mark != "" && !strings.HasSuffix(line, mark)) {
			t.Errorf("%s: %q, want the mark %q", typ, line, mark)
		}
	}
	if len(want) > 0 {
		t.Errorf("types not listed: %v", want)
	}
}

func TestFlagMistakesArePrintedOnceAndExitTwo(t *testing.T) {
	rc, _, stderr := prooflane(t, "validate", "--bogus", "x.yaml")
	if rc != 2 {
		t.Errorf("exit %d, want 2", rc)
	}
	if n := strings.Count(stderr, "flag provided but not defined: -bogus"); n != 1 {
		t.Errorf("the mistake is printed %d times, want once:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "usage: prooflane validate") {
		t.Errorf("no usage after the mistake:\n%s", stderr)
	}
	if rc, _, _ := prooflane(t, "validate", "-h"); rc != 0 {
		t.Errorf("-h exits %d, want 0", rc)
	}
}
