package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/prooflane/prooflane/runtime"
)

func init() {
	register("validate", command{summary: "check pipeline files; print every problem as file:line:col", run: runValidate})
}

func runValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", "FILE...", stderr)
	set := setFlags{}
	fs.Var(set, "set", "override a pipeline parameter, name=value (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "no pipeline given (a file or an embedded name)")
	}
	bad := 0
	for _, f := range fs.Args() {
		p, err := loadPipeline(f, set)
		var ve *runtime.ValidationError
		switch {
		case errors.As(err, &ve):
			bad++
			fmt.Fprintln(stderr, ve.Error())
		case err != nil:
			bad++
			fmt.Fprintf(stderr, "%s: %v\n", f, err)
		default:
			fmt.Fprintf(stdout, "%s: ok (pipeline %q: %d stages, %d resources, %d spans)\n", p.File, p.Name, len(p.Stages), len(p.Resources), len(p.Spans))
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d files invalid: %w", bad, fs.NArg(), errSilent)
	}
	return nil
}
