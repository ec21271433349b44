package main

import (
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
	// A failure of the work itself is 1.
	if rc, _, _ := prooflane(t, "graph", "no-such-pipeline"); rc != 1 {
		t.Errorf("graph of a missing pipeline: exit %d, want 1", rc)
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
	if got, want := versionLine(bi), "prooflane v0.3.0 github.com/prooflane/prooflane revision 815ae93 (modified) go1.26.8"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	bi.Settings = nil
	if got := versionLine(bi); !strings.Contains(got, "no VCS revision recorded") {
		t.Errorf("without vcs settings: %q", got)
	}
}
