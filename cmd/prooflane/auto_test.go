package main

import (
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/runtime"
)

// validate prints what each auto count resolves to, and why, for the
// devices and cores asked for; one device gives the shipped layouts'
// single-GPU counts.
func TestValidateShowsAutoCountsAndWhereTheyCameFrom(t *testing.T) {
	rc, out, stderr := prooflane(t, "validate", "--devices", "2", "--cores", "16", "groth16")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	want := `embedded:groth16.yaml: ok (pipeline "groth16": 6 stages, 3 resources, 1 spans)
  cpu_bandwidth: capacity auto = 8 (4 per device x 2 devices, 16 cores)
  synthesize: workers auto = 4 (2 per device x 2 devices, 16 cores)
  prep_msm: workers auto = 4 (2 per device x 2 devices, 16 cores)
`
	if out != want {
		t.Errorf("validate --devices 2 --cores 16:\n%s\nwant:\n%s", out, want)
	}
	rc, out, _ = prooflane(t, "validate", "--cores", "4", "--devices", "8", "groth16")
	if rc != 0 || !strings.Contains(out, "  synthesize: workers auto = 4 (2 per device x 8 devices, capped at 4 by 4 cores)\n") ||
		!strings.Contains(out, "  cpu_bandwidth: capacity auto = 8 (4 per device x 8 devices, capped at 8, twice 4 cores)\n") {
		t.Errorf("validate with 8 devices on 4 cores (exit %d):\n%s", rc, out)
	}
	// The file's devices (1) when --devices is not given.
	rc, out, _ = prooflane(t, "validate", "--cores", "16", "groth16")
	if rc != 0 || !strings.Contains(out, "  synthesize: workers auto = 4 (1 per 4 cores x 16 cores, more than 2 per device x 1 device)\n") ||
		!strings.Contains(out, "  cpu_bandwidth: capacity auto = 8 (1 per 2 cores x 16 cores, more than 4 per device x 1 device)\n") {
		t.Errorf("validate groth16 on 16 cores (exit %d):\n%s", rc, out)
	}
	rc, out, _ = prooflane(t, "validate", "--cores", "8", "plonk")
	if rc != 0 || !strings.Contains(out, "  solve: workers auto = 2 (2 per device x 1 device, 8 cores)\n") {
		t.Errorf("validate plonk (exit %d):\n%s", rc, out)
	}
	// --set reaches auto like any parameter, and a bad word is placed.
	dir := t.TempDir()
	rc, _, stderr = prooflane(t, "validate", "--set", "synth_workers=autox", "groth16")
	if rc != 1 || !strings.Contains(stderr, `embedded:groth16.yaml:`) || !strings.Contains(stderr, `stage "synthesize": workers: want a whole number or "auto", got "autox"`) {
		t.Errorf("--set synth_workers=autox (exit %d): %s", rc, stderr)
	}
	f := writeFile(t, dir, "w.yaml", "pipeline: w\nparams: {w: 3}\nstages:\n  a: {type: sim.sleep, workers: \"${w}\"}\n")
	rc, out, stderr = prooflane(t, "validate", "--set", "w=auto", "--devices", "3", "--cores", "64", f)
	if rc != 0 || !strings.Contains(out, "  a: workers auto = 16 (1 per 4 cores x 64 cores, more than 2 per device x 3 devices)\n") {
		t.Errorf("--set w=auto (exit %d):\n%s%s", rc, out, stderr)
	}
	for _, bad := range [][]string{{"--devices", "0"}, {"--devices", "65"}, {"--cores", "0"}, {"--cores", "70000"}} {
		if rc, _, stderr := prooflane(t, append(append([]string{"validate"}, bad...), "groth16")...); rc != 2 || !strings.Contains(stderr, bad[0]+" "+bad[1]) {
			t.Errorf("validate %v: exit %d, want 2 naming the flag: %s", bad, rc, stderr)
		}
	}
}

func TestValidateJSONListsAutoCounts(t *testing.T) {
	rc, out, stderr := prooflane(t, "validate", "--json", "--devices", "2", "--cores", "32", "groth16", "sim-groth16")
	if rc != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	var got validateOutput
	decodeStrict(t, out, &got)
	g, sim := got.Files[0], got.Files[1]
	want := []validateAuto{
		{Resource: "cpu_bandwidth", Value: 16, Why: "1 per 2 cores x 32 cores, more than 4 per device x 2 devices"},
		{Stage: "synthesize", Value: 8, Why: "1 per 4 cores x 32 cores, more than 2 per device x 2 devices"},
		{Stage: "prep_msm", Value: 8, Why: "1 per 4 cores x 32 cores, more than 2 per device x 2 devices"},
	}
	if g.Devices != 2 || g.Cores != 32 || len(g.Auto) != len(want) {
		t.Fatalf("groth16: %+v", g)
	}
	for i := range want {
		if g.Auto[i] != want[i] {
			t.Errorf("auto[%d] = %+v, want %+v", i, g.Auto[i], want[i])
		}
	}
	if len(sim.Auto) != 0 || sim.Devices != 2 {
		t.Errorf("sim-groth16 has no auto counts: %+v", sim)
	}
}

// graph labels an auto count with its number and "(auto)", on the stage's
// workers and on a lock of a resource whose capacity is auto.
func TestGraphMarksAutoCounts(t *testing.T) {
	rc, out, stderr := prooflane(t, "graph", "--devices", "2", "--cores", "16", "groth16")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	for _, want := range []string{
		`"synthesize" [label="synthesize\ngroth16.synthesize\nlocks: cpu_bandwidth×2 of 8 (auto)\nworkers: 4 (auto)"];`,
		`"prep_msm" [label="prep_msm\ngroth16.prep_msm\nlocks: cpu_bandwidth of 8 (auto)\nworkers: 4 (auto)"];`,
		`\nworkers: 2 per device", style=`, // gpu_compute: a number stays a number
		`"epilogue" [label="epilogue\ngroth16.epilogue\nworkers: 2"];`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dot output lacks %s:\n%s", want, out)
		}
	}
	rc, out, _ = prooflane(t, "graph", "--format", "mermaid", "--cores", "8", "plonk")
	if rc != 0 || !strings.Contains(out, `solve["solve<br/>plonk.solve<br/>locks: cpu_bandwidth×2 of 4 (auto)<br/>workers: 2 (auto)"]`) {
		t.Errorf("mermaid (exit %d):\n%s", rc, out)
	}
}

// prove says what the auto counts are on the devices it runs on.
func TestProveSaysWhatItsAutoCountsAre(t *testing.T) {
	rc, _, stderr := prooflane(t, "prove", "--size", "2^8", "--partitions", "2", "--devices", "2",
		"--keys", t.TempDir(), "--out", filepath.Join(t.TempDir(), "p"), "--progress", "off")
	want := fmt.Sprintf("prooflane prove: groth16: cpu_bandwidth: capacity auto = %d (", runtime.AutoCapacity(2, goruntime.NumCPU()))
	if rc != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "synthesize: workers auto = ") {
		t.Errorf("exit %d, stderr\n%s\nwant it to contain %q", rc, stderr, want)
	}
}
