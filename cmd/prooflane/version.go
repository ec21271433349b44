package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register("version", command{summary: "print the module version and the VCS revision this binary was built from", run: runVersion})
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "version takes no arguments, got %q", fs.Args())
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "prooflane: no build information in this binary")
		return nil
	}
	fmt.Fprintln(stdout, versionLine(bi))
	return nil
}

// versionLine says which module version and revision a binary is:
// "prooflane (devel) github.com/prooflane/prooflane revision 815ae93c2f1e
// (modified) 2026-12-01T01:00:00Z go1.26.8". go install of a tagged module
// gives a version; a build in a clone gives the revision.
func versionLine(bi *debug.BuildInfo) string {
	s := "prooflane " + orUnknown(bi.Main.Version)
	if bi.Main.Path != "" {
		s += " " + bi.Main.Path
	}
	var rev, modified, when string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value
		case "vcs.time":
			when = kv.Value
		}
	}
	if rev != "" {
		s += " revision " + rev
		if modified == "true" {
			s += " (modified)"
		}
		if when != "" {
			s += " " + when
		}
	} else {
		s += " (no VCS revision recorded)"
	}
	return s + " " + bi.GoVersion
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}
