package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register("version", command{summary: "print the module version and the VCS revision this binary was built from", run: runVersion})
}

// version is what `make build` stamps in (-ldflags -X main.version=...:
// git describe --always --dirty of the checkout); empty in other builds,
// which go by the module version and VCS revision in the build info.
var version string

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
		bi = &debug.BuildInfo{}
	}
	fmt.Fprintln(stdout, versionLine(bi, version))
	return nil
}

// versionLine says which module version and revision a binary is:
// "prooflane (devel) github.com/prooflane/prooflane revision 815ae93c2f1e
// (modified) 2026-12-01T01:00:00Z go1.26.8". go install of a tagged module
// gives a version; a build in a clone gives the revision; stamped (make
// build's git describe), when set, stands for the module version.
func versionLine(bi *debug.BuildInfo, stamped string) string {
	v := stamped
	if v == "" {
		v = orUnknown(bi.Main.Version)
	}
	s := "prooflane " + v
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
	} else if stamped == "" && (bi.Main.Version == "" || bi.Main.Version == "(devel)") {
		s += " (no VCS revision recorded)"
	}
	if bi.GoVersion != "" {
		s += " " + bi.GoVersion
	}
	return s
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}
