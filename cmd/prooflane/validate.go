package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	goruntime "runtime"

	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
)

func init() {
	register("validate", command{summary: "check pipelines (files or embedded names); print every problem as file:line:col", run: runValidate})
}

func runValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", "PIPELINE...", stderr)
	set := newSetFlag(fs, "the pipeline")
	asJSON := fs.Bool("json", false, "print one JSON document on stdout (schema in docs/json.md) instead of lines")
	sizing := newSizingFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "devices", "cores"); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "no pipeline given (a file or an embedded name)")
	}
	bad, badSet, unknown := 0, 0, 0
	var results []validateResult
	for _, f := range fs.Args() {
		p, err := loadPipelineWith(f, sizing.options(set))
		r := validateResult{Arg: f, File: f, OK: err == nil}
		switch {
		case errors.Is(err, pipelines.ErrNotFound):
			unknown++
		case errors.As(err, new(usageError)):
			badSet++
		}
		var ve *runtime.ValidationError
		switch {
		case errors.As(err, &ve):
			bad++
			for _, pr := range ve.Problems {
				r.Problems = append(r.Problems, validateProblem{File: pr.File, Line: pr.Line, Column: pr.Col, Message: pr.Msg})
			}
			if len(ve.Problems) > 0 {
				r.File = ve.Problems[0].File
			}
			if !*asJSON {
				fmt.Fprintln(stderr, ve.Error())
			}
		case err != nil:
			bad++
			r.Problems = []validateProblem{{File: f, Message: err.Error()}}
			if !*asJSON {
				fmt.Fprintf(stderr, "%s: %v\n", f, err)
			}
		default:
			r.File, r.Pipeline = p.File, p.Name
			r.Stages, r.Resources, r.Spans = len(p.Stages), len(p.Resources), len(p.Spans)
			r.Devices, r.Cores, r.Auto = p.Devices, p.Cores, autoJSON(p)
			if !*asJSON {
				fmt.Fprintf(stdout, "%s: ok (pipeline %q: %d stages, %d resources, %d spans)\n", p.File, p.Name, len(p.Stages), len(p.Resources), len(p.Spans))
				// What the machine decided, one line each, so that a
				// layout's counts on this machine are never a guess.
				for _, a := range p.Auto {
					fmt.Fprintf(stdout, "  %s\n", a)
				}
			}
		}
		results = append(results, r)
	}
	if *asJSON {
		if err := writeJSON(stdout, validateOutput{Files: results, Invalid: bad}); err != nil {
			return err
		}
	}
	if unknown > 0 {
		return usageErrorf(fs, "%d of %d arguments name neither a file nor an embedded pipeline (listed above)", unknown, fs.NArg())
	}
	if badSet > 0 {
		return usageErrorf(fs, "--set %s: %d of %d files refuse it (their problems are listed)", set, badSet, fs.NArg())
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d files invalid: %w", bad, fs.NArg(), errSilent)
	}
	return nil
}

// validateOutput is validate --json (docs/json.md).
type validateOutput struct {
	Files   []validateResult `json:"files"`
	Invalid int              `json:"invalid"`
}

type validateResult struct {
	// Arg is the argument as given; File the file problems name (an
	// embedded pipeline's is "embedded:NAME.yaml").
	Arg       string `json:"arg"`
	File      string `json:"file"`
	OK        bool   `json:"ok"`
	Pipeline  string `json:"pipeline,omitempty"`
	Stages    int    `json:"stages,omitempty"`
	Resources int    `json:"resources,omitempty"`
	Spans     int    `json:"spans,omitempty"`
	// Devices and Cores are what auto counts were sized for; Auto lists
	// them (valid files only).
	Devices  int               `json:"devices,omitempty"`
	Cores    int               `json:"cores,omitempty"`
	Auto     []validateAuto    `json:"auto,omitempty"`
	Problems []validateProblem `json:"problems,omitempty"`
}

// validateAuto is one count a pipeline left to auto: a stage's workers or
// a resource's capacity.
type validateAuto struct {
	Stage    string `json:"stage,omitempty"`
	Resource string `json:"resource,omitempty"`
	Value    int64  `json:"value"`
	Why      string `json:"why"`
}

func autoJSON(p *runtime.Pipeline) []validateAuto {
	out := []validateAuto{}
	for _, a := range p.Auto {
		v := validateAuto{Resource: a.Resource, Value: a.Value, Why: a.Why}
		if a.Stage != nil {
			v.Stage = a.Stage.Name
		}
		out = append(out, v)
	}
	return out
}

// sizingFlags are --devices and --cores of the commands that show a
// pipeline without running it (validate, graph): the machine its auto
// counts are sized for.
type sizingFlags struct {
	devices, cores *int
}

func newSizingFlags(fs *flag.FlagSet) sizingFlags {
	return sizingFlags{
		devices: fs.Int("devices", 0, "size auto counts for this many devices (default: each pipeline's devices)"),
		cores:   fs.Int("cores", 0, fmt.Sprintf("size auto counts for this many host cores (default: this machine's, %d)", goruntime.NumCPU())),
	}
}

func (f sizingFlags) options(params map[string]string) runtime.LoadOptions {
	return runtime.LoadOptions{Params: params, Devices: *f.devices, Cores: *f.cores}
}

// validateProblem is one problem; line and column are 0 when it has no
// place in the file.
type validateProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}
