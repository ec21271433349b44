package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/prooflane/prooflane/pipelines"
)

func init() {
	register("pipelines", command{summary: "list the pipelines embedded in this binary, by the name --pipeline takes", run: runPipelines})
}

// pipelineArgHelp says how a pipeline argument is resolved; every flag and
// argument that takes a pipeline uses it.
const pipelineArgHelp = "a pipeline file, or the name of an embedded pipeline (`prooflane pipelines` lists them); a file that exists wins over a name"

func runPipelines(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pipelines", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "pipelines takes no arguments, got %q", fs.Args())
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, p := range pipelines.List() {
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Summary)
	}
	return tw.Flush()
}
