package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/prooflane/prooflane/pipelines"
)

func init() {
	register("pipelines", command{
		summary:     "list the pipelines embedded in this binary, by the name --pipeline takes; show NAME prints one's YAML, to copy and edit",
		run:         runPipelines,
		subcommands: []string{"show"},
	})
}

// pipelineArgHelp says how a pipeline argument is resolved; every flag and
// argument that takes a pipeline uses it.
const pipelineArgHelp = "pipeline `file|name`: a file, or the name of an embedded pipeline ('prooflane pipelines' lists them); a file that exists wins over a name"

func runPipelines(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pipelines", "[show NAME]", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
	case fs.Arg(0) != "show":
		return usageErrorf(fs, "unknown subcommand %q%s (want show NAME, or nothing for the list)", fs.Arg(0), didYouMean(fs.Arg(0), []string{"show"}, ""))
	case fs.NArg() != 2:
		return usageErrorf(fs, "show takes one embedded pipeline's name, got %d arguments", fs.NArg()-1)
	default:
		return showPipeline(fs.Arg(1), stdout)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, p := range pipelines.List() {
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Summary)
	}
	return tw.Flush()
}

// showPipeline writes the embedded pipeline's file as it is embedded,
// byte for byte: `prooflane pipelines show groth16 > mine.yaml` is the
// file to edit, wherever the binary was installed from.
func showPipeline(name string, stdout io.Writer) error {
	_, src, err := pipelines.Open(name)
	if errors.Is(err, pipelines.ErrNotFound) {
		return usageError{err: err}
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(src)
	return err
}
