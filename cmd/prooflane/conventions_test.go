package main

import (
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// Help that was asked for is output, not an error: it goes to stdout so
// `prooflane --help | grep` finds it, and exits 0. Help after a mistake
// goes to stderr with exit 2.
func TestHelpGoesToStdoutWhenAskedFor(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		rc, out, stderr := prooflane(t, args...)
		if rc != 0 || !strings.Contains(out, "commands:") || !strings.Contains(out, "pipelines ") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want the command list on stdout, exit 0", args, rc, out, stderr)
		}
	}
	rc, out, stderr := prooflane(t)
	if rc != 2 || out != "" || !strings.Contains(stderr, "commands:") {
		t.Errorf("no command: exit %d, stdout %q; want the usage on stderr, exit 2", rc, out)
	}
	for _, args := range [][]string{{"help", "prove"}, {"prove", "--help"}} {
		rc, out, stderr := prooflane(t, args...)
		if rc != 0 || !strings.HasPrefix(out, "usage: prooflane prove [flags]\n") || !strings.Contains(out, "-out string") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want prove's own help on stdout", args, rc, out, stderr)
		}
	}
	if rc, _, stderr := prooflane(t, "help", "prov"); rc != 2 || !strings.Contains(stderr, `unknown command "prov" (did you mean "prove"?)`) {
		t.Errorf("help prov: exit %d, stderr %q", rc, stderr)
	}
}

// A mistake prints its reason first, one usage line and where the help
// is: not thirty lines of flags before the reason.
func TestUsageErrorsPutTheReasonFirstAndExitTwo(t *testing.T) {
	rc, out, stderr := prooflane(t, "prove", "--circuit", "chain")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if rc != 2 || out != "" || lines[0] != "prooflane prove: --out is required" || len(lines) > 3 || lines[len(lines)-1] != "see 'prooflane help prove'" {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2, the reason first and at most 3 lines", rc, stderr)
	}
	for _, args := range [][]string{
		{"graph"},
		{"graph", "--format", "svg", "sim-groth16"},
		{"validate"},
		{"run", "--jobs", "0", "sim-groth16"},
		{"bench", "--inflight", "x"},
		{"nosuchcommand"},
	} {
		if rc, _, stderr := prooflane(t, args...); rc != 2 {
			t.Errorf("%v: exit %d, want 2 (a usage error); stderr %q", args, rc, stderr)
		}
	}
	// A pipeline argument that names neither a file nor an embedded
	// pipeline is a typo: exit 2, with the closest name.
	if rc, _, stderr := prooflane(t, "graph", "sim-groth61"); rc != 2 || !strings.Contains(stderr, `did you mean "sim-groth16"?`) {
		t.Errorf("graph of a missing pipeline: exit %d, want 2 and the closest name; stderr %q", rc, stderr)
	}
	// A failure of the work itself is 1.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("pipeline: x\nstages: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, _, _ := prooflane(t, "graph", bad); rc != 1 {
		t.Errorf("graph of an invalid pipeline: exit %d, want 1", rc)
	}
}

// simulate spelled it --in-flight, run and bench --inflight: --inflight
// it is, and the old spelling still works, warns, and is not in the help.
func TestSimulateInFlightIsADeprecatedAliasOfInflight(t *testing.T) {
	_, help, _ := prooflane(t, "help", "simulate")
	if !strings.Contains(help, "-inflight int") || strings.Contains(help, "in-flight") {
		t.Errorf("simulate help should list --inflight only:\n%s", help)
	}
	rc, _, stderr := prooflane(t, "simulate", "--from", "x.jsonl", "--pipeline", "sim-groth16", "--in-flight", "0")
	if rc != 2 || !strings.Contains(stderr, "--in-flight is deprecated, use --inflight") || !strings.Contains(stderr, "--in-flight 0: want at least 1 (leave the flag out for the default: the most the trace ran at once)") {
		t.Errorf("exit %d, stderr %q; want the deprecation warning and the value checked", rc, stderr)
	}
}

func TestVersionNamesModuleVersionAndRevision(t *testing.T) {
	rc, out, _ := prooflane(t, "--version")
	if rc != 0 || !strings.HasPrefix(out, "prooflane ") {
		t.Errorf("--version: exit %d, %q", rc, out)
	}
	if rc2, out2, _ := prooflane(t, "version"); rc2 != 0 || out2 != out {
		t.Errorf("version: exit %d, %q; want what --version printed, %q", rc2, out2, out)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/prooflane/prooflane", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "815ae93"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(bi, ""), "prooflane v0.3.0 github.com/prooflane/prooflane revision 815ae93 (modified) go1.26.8"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	// go install of a tagged module: the version says it all.
	bi.Settings = nil
	if got, want := versionLine(bi, ""), "prooflane v0.3.0 github.com/prooflane/prooflane go1.26.8"; got != want {
		t.Errorf("a tagged module without vcs settings: %q, want %q", got, want)
	}
	bi.Main.Version = "(devel)"
	if got := versionLine(bi, ""); !strings.Contains(got, "no VCS revision recorded") {
		t.Errorf("a devel build without vcs settings: %q", got)
	}
	// make build stamps git describe in.
	if got, want := versionLine(bi, "v0.3.0-4-g815ae93-dirty"), "prooflane v0.3.0-4-g815ae93-dirty github.com/prooflane/prooflane go1.26.8"; got != want {
		t.Errorf("stamped: %q, want %q", got, want)
	}
}

// make build stamps the checkout's git describe into main.version, which
// --version prints; the family list of prove's summary is the registry's.
func TestMakeBuildStampsTheVersion(t *testing.T) {
	make, err := exec.LookPath("make")
	git, gerr := exec.LookPath("git")
	if err != nil || gerr != nil {
		t.Skip("needs make and git")
	}
	describe, err := exec.Command(git, "describe", "--always", "--dirty").Output()
	if err != nil {
		t.Skipf("git describe: %v (not a git checkout?)", err)
	}
	cmd := exec.Command(make, "-n", "build")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if want := "-X main.version=" + strings.TrimSpace(string(describe)); err != nil || !strings.Contains(string(out), want) {
		t.Errorf("make -n build: %v, want %q in:\n%s", err, want, out)
	}
	defer func(v string) { version = v }(version)
	version = "v9.9.9-stamped"
	if rc, out, _ := prooflane(t, "--version"); rc != 0 || !strings.HasPrefix(out, "prooflane v9.9.9-stamped ") {
		t.Errorf("--version with a stamped version: exit %d, %q", rc, out)
	}
	_, help, _ := prooflane(t, "help")
	for _, fam := range shipped.families().Names() {
		if !strings.Contains(help, fam+",") && !strings.Contains(help, fam+")") {
			t.Errorf("the summaries name no family %q:\n%s", fam, help)
		}
	}
}

// Flags may follow the arguments, as the docs print `trace send FILE
// --endpoint X`; after `--` everything is an argument; a flag that wants
// a value and ends the line is a mistake, not a flag given "--".
func TestFlagsMayFollowArguments(t *testing.T) {
	fs := newFlags("test", "ARGS", io.Discard)
	n := fs.Int("n", 0, "")
	b := fs.Bool("b", false, "")
	s := fs.String("s", "", "")
	if err := parseFlags(fs, []string{"a", "-n", "3", "b", "--b", "--s=x", "c", "--", "-n", "d"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fs.Args(), " "); *n != 3 || !*b || *s != "x" || got != "a b c -n d" {
		t.Errorf("n %d b %v s %q args %q; want 3 true x and \"a b c -n d\"", *n, *b, *s, got)
	}
	fs = newFlags("test", "ARGS", io.Discard)
	s = fs.String("s", "", "")
	if err := parseFlags(fs, []string{"a", "-s"}); !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "flag needs an argument: -s") {
		t.Errorf("a value flag last: %v, want a usage error", err)
	}
	rc, out, stderr := prooflane(t, "graph", "sim-groth16", "--format", "mermaid")
	if rc != 0 || !strings.HasPrefix(out, "flowchart LR") {
		t.Errorf("graph PIPELINE --format mermaid: exit %d\n%s%s", rc, out, stderr)
	}
	if rc, _, stderr := prooflane(t, "validate", "sim-groth16", "--bogus"); rc != 2 || !strings.Contains(stderr, "flag provided but not defined: -bogus") {
		t.Errorf("an unknown flag after the argument: exit %d, stderr %q", rc, stderr)
	}
}

// Every registered command, and each of its subcommands, answers -h and
// `prooflane help CMD [SUB]` with its own help on stdout, exit 0.
func TestEveryCommandAndSubcommandAnswersHelp(t *testing.T) {
	for _, name := range commandNames() {
		calls := [][]string{{name, "-h"}, {name, "--help"}, {"help", name}}
		for _, sub := range commands[name].subcommands {
			calls = append(calls, []string{name, sub, "-h"}, []string{"help", name, sub})
		}
		for _, args := range calls {
			rc, out, stderr := prooflane(t, args...)
			if rc != 0 || !strings.HasPrefix(out, "usage: prooflane "+name) || stderr != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want %s's help on stdout, exit 0", args, rc, out, stderr, name)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "trace", "sned"}, `prooflane help trace: unknown subcommand "sned" (did you mean "send"?) (want send)`},
		{[]string{"help", "prove", "x"}, `prooflane help: want one command, got ["prove" "x"]`},
	} {
		if rc, _, stderr := prooflane(t, c.args...); rc != 2 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, rc, stderr, c.want)
		}
	}
}

// Help names each flag's argument from its usage's back-quoted word: a
// word of prose there ("-pipeline prooflane pipelines") reads as the
// argument. No flag of any command takes a command's name as argument.
func TestFlagArgumentNamesAreNoCommandWords(t *testing.T) {
	for _, name := range commandNames() {
		var hr helpRequest
		if err := commands[name].run([]string{"-h"}, io.Discard, io.Discard); !errors.As(err, &hr) {
			t.Fatalf("%s -h: %v, want a help request", name, err)
		}
		hr.fs.VisitAll(func(f *flag.Flag) {
			arg, _ := flag.UnquoteUsage(f)
			for _, w := range strings.FieldsFunc(arg, func(r rune) bool { return r == ' ' || r == '|' }) {
				if _, isCmd := commands[w]; isCmd || w == "prooflane" || strings.Contains(arg, " ") {
					t.Errorf("%s --%s: help shows its argument as %q", name, f.Name, arg)
					return
				}
			}
		})
	}
}

// A misspelt command or flag gets the closest one; a pipeline that names
// neither a file nor an embedded pipeline is a usage mistake (exit 2)
// with the closest embedded name, wherever a pipeline is taken.
func TestTyposGetADidYouMeanAndExitTwo(t *testing.T) {
	keys := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"porve"}, `prooflane: unknown command "porve" (did you mean "prove"?)`},
		{[]string{"prove", "--pipline", "x"}, "flag provided but not defined: -pipline (did you mean --pipeline?)"},
		{[]string{"prove", "--out", t.TempDir(), "--keys", keys, "--pipeline", "groth61"}, `pipeline "groth61": no such file, and no embedded pipeline of that name (did you mean "groth16"?`},
		{[]string{"prove", "--out", t.TempDir(), "--keys", keys, "--pipeline", "nosuch"}, `pipeline "nosuch": no such file`},
		{[]string{"setup", "--keys", keys, "--pipeline", "plnk"}, `(did you mean "plonk"?`},
		{[]string{"bench", "--keys", keys, "plnok"}, `(did you mean "plonk"?`},
		{[]string{"run", "sim-groth61"}, `(did you mean "sim-groth16"?`},
		{[]string{"validate", "sim-groth16", "groth61"}, "1 of 2 arguments name neither a file nor an embedded pipeline"},
		{[]string{"simulate", "--from", "x.jsonl", "--pipeline", "groth61"}, `(did you mean "groth16"?`},
		{[]string{"pipelines", "show", "groth61"}, `no embedded pipeline "groth61" (did you mean "groth16"?`},
	} {
		rc, _, stderr := prooflane(t, c.args...)
		if rc != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, rc, stderr, c.want)
		}
	}
}

// maxFuncLines bounds a function of cmd/prooflane: flags and printing,
// with the work in packages, fit in 80 lines; a longer one is split.
const maxFuncLines = 80

// No function in the command's own files (tests aside) is longer than
// maxFuncLines, from its func line to its closing brace.
func TestNoCommandFunctionIsOver80Lines(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			from, to := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := to.Line - from.Line + 1; n > maxFuncLines {
				t.Errorf("%s:%d: func %s is %d lines, over %d: split it", name, from.Line, fn.Name.Name, n, maxFuncLines)
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d functions; the command has more", checked)
	}
}
