package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's full pipeline example must load: docs that show YAML the
// loader rejects would cost a user an evening.
func TestReadmePipelineExampleValidates(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	checked := 0
	for i, m := range blocks {
		if !strings.HasPrefix(m[1], "pipeline:") {
			continue // fragments
		}
		f := filepath.Join(t.TempDir(), "readme.yaml")
		if err := os.WriteFile(f, []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if rc, _, stderr := prooflane(t, "validate", f); rc != 0 {
			t.Errorf("README yaml block %d does not validate:\n%s", i, stderr)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no full pipeline example found in README.md")
	}
}

// The README's prooflane commands work with a built binary from a
// directory outside the clone: pipelines are named, not found by path
// (`prove` run elsewhere used to fail with "open pipelines/groth16.yaml").
// CUDA commands are left out; so is the Jaeger block (go run, not
// prooflane). Also: --help goes to stdout for grep, and --version names
// the revision of a build with VCS stamping.
func TestReadmeCommandsWorkFromOutsideTheClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and proves a job")
	}
	bin := filepath.Join(t.TempDir(), "prooflane")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		block := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "prooflane ") && !strings.Contains(line, "--backend cuda") {
				cmds = append(cmds, line)
			}
		}
	}
	// In the README's prose about replaying a trace through another layout.
	cmds = append(cmds, "prooflane simulate --from out/demo/trace.jsonl --pipeline groth16-dual-worker")
	if len(cmds) < 7 {
		t.Fatalf("found %d prooflane commands in the README, want the prove, verify, analyze, run, graph ones at least:\n%s", len(cmds), strings.Join(cmds, "\n"))
	}
	work := t.TempDir()
	env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(work, "cache"))
	for _, c := range cmds {
		cmd := exec.Command(bin, strings.Fields(c)[1:]...)
		cmd.Dir, cmd.Env = work, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s (in %s): %v\n%s", c, work, err, out)
		}
	}
	help, err := exec.Command(bin, "--help").Output()
	if err != nil || !strings.Contains(string(help), "pipelines ") {
		t.Errorf("--help on stdout: %v\n%s", err, help)
	}
	version, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(version), "prooflane ") {
		t.Errorf("--version: %v %q", err, version)
	}
	if _, err := exec.LookPath("git"); err == nil && !strings.Contains(string(version), " revision ") {
		t.Logf("--version without a revision (a build outside a git checkout?): %q", version)
	}
}
