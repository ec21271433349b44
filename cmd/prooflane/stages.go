package main

import (
	"fmt"
	"io"
)

func init() {
	register("stages", command{summary: "list the stage types this build knows", run: runStages})
}

func runStages(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("stages", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "stages takes no arguments, got %q", fs.Args())
	}
	reg := shipped.stages()
	for _, t := range reg.Types() {
		f, _ := reg.Lookup(t)
		io := ""
		if len(f.Inputs) > 0 {
			io = fmt.Sprintf(" reads %v", f.Inputs)
		}
		if f.Output != "" {
			io += fmt.Sprintf(" → %s", f.Output)
		}
		switch {
		case f.Busy:
			io += " [device, busy]" // its runs count as the device's busy time
		case f.Device:
			io += " [device]"
		}
		fmt.Fprintf(stdout, "%-22s %s%s\n", t, f.Doc, io)
	}
	return nil
}
