package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every full pipeline example in the README and docs/ must load: docs
// that show YAML the loader rejects would cost a user an evening. The
// field-by-field example is in docs/yaml.md.
func TestReadmePipelineExampleValidates(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../../README.md")
	checked := map[string]int{}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
		for i, m := range blocks {
			if !strings.HasPrefix(m[1], "pipeline:") {
				continue // fragments
			}
			f := filepath.Join(t.TempDir(), "example.yaml")
			if err := os.WriteFile(f, []byte(m[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			if rc, _, stderr := prooflane(t, "validate", f); rc != 0 {
				t.Errorf("%s: yaml block %d does not validate:\n%s", doc, i, stderr)
			}
			checked[filepath.Base(doc)]++
		}
	}
	if checked["yaml.md"] == 0 {
		t.Errorf("no full pipeline example found in docs/yaml.md (checked %v)", checked)
	}
}

// readmeCommands returns the prooflane commands of the README's sh
// blocks, continued lines joined: lines that start with `prooflane ` or
// `bin/prooflane `, and what follows `&& ` when that starts so (the quick
// start builds and proves in one line). Each command comes back starting
// with `prooflane `.
func readmeCommands(readme string) []string {
	var cmds []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(readme, -1) {
		block := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, line := range strings.Split(block, "\n") {
			if i := strings.LastIndex(line, "&& "); i >= 0 {
				line = line[i+len("&& "):]
			}
			line = strings.TrimPrefix(line, "bin/")
			if strings.HasPrefix(line, "prooflane ") {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

// readmeArgs splits a README command into the binary's arguments and the
// file its stdout goes to (`prooflane pipelines show groth16 > x.yaml`),
// "" for none.
func readmeArgs(c string) (args []string, redirect string) {
	f := strings.Fields(c)[1:]
	for i, w := range f {
		if w == ">" && i+2 == len(f) {
			return f[:i], f[i+1]
		}
	}
	return f, ""
}

// runInto runs cmd with its stdout written to file, and returns its
// stderr.
func runInto(cmd *exec.Cmd, file string) ([]byte, error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	return stderr.Bytes(), err
}

func TestReadmeCommandsAreFoundInTheirForms(t *testing.T) {
	readme := "```sh\ngo build -o bin/prooflane ./cmd/prooflane && bin/prooflane prove --out d\nmake test\n```\n" +
		"```sh\nprooflane verify d\nprooflane bench \\\n  --jobs 2 x\n```\n```console\nprooflane not-sh\n```\n"
	got := strings.Join(readmeCommands(readme), "|")
	if want := "prooflane prove --out d|prooflane verify d|prooflane bench    --jobs 2 x"; got != want {
		t.Errorf("readmeCommands:\n got %q\nwant %q", got, want)
	}
	if args, to := readmeArgs("prooflane pipelines show groth16 > my.yaml"); strings.Join(args, " ") != "pipelines show groth16" || to != "my.yaml" {
		t.Errorf("readmeArgs of a redirect: %q, %q", args, to)
	}
}

// The README's prooflane commands work with a built binary from a
// directory outside the clone, in the order the README gives them: the
// quick start's prove first, then the tour's commands on its output.
// Pipelines are named, not found by path (`prove` run elsewhere used to
// fail with "open pipelines/groth16.yaml"). CUDA commands are left out,
// and so is `trace send`, which needs a running collector. A command's
// `> FILE` writes its output to FILE (an embedded pipeline shown, then
// validated as a file of its own). Also: --help
// goes to stdout for grep, and --version names the revision of a build
// with VCS stamping.
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
	for _, c := range readmeCommands(string(b)) {
		if !strings.Contains(c, "--backend cuda") && !strings.HasPrefix(c, "prooflane trace send") {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 0 || !strings.HasPrefix(cmds[0], "prooflane prove ") {
		t.Fatalf("the README's first prooflane command is not the quick start's prove:\n%s", strings.Join(cmds, "\n"))
	}
	for _, want := range []string{"prove", "verify", "analyze", "run", "graph", "simulate", "pipelines", "validate"} {
		found := false
		for _, c := range cmds {
			found = found || strings.Fields(c)[1] == want
		}
		if !found {
			t.Errorf("no `prooflane %s` command in the README's sh blocks:\n%s", want, strings.Join(cmds, "\n"))
		}
	}
	work := t.TempDir()
	env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(work, "cache"))
	for _, c := range cmds {
		args, redirect := readmeArgs(c)
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, env
		var out []byte
		if redirect == "" {
			out, err = cmd.CombinedOutput()
		} else {
			out, err = runInto(cmd, filepath.Join(work, redirect))
		}
		if err != nil {
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
