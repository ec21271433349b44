package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/prooflane/prooflane/runtime"
)

func init() {
	register("graph", command{summary: "draw a pipeline's stages, edges and locks (DOT or Mermaid)", run: runGraph})
}

func runGraph(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("graph", "PIPELINE", stderr)
	format := fs.String("format", "dot", "output format: dot or mermaid")
	set := newSetFlag(fs, "the pipeline")
	sizing := newSizingFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "devices", "cores"); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "want exactly one pipeline (a file or an embedded name), got %d arguments", fs.NArg())
	}
	p, err := loadPipelineWith(fs.Arg(0), sizing.options(set))
	if err != nil {
		return err
	}
	switch *format {
	case "dot":
		writeDOT(stdout, p)
	case "mermaid":
		writeMermaid(stdout, p)
	default:
		return usageErrorf(fs, "--format %q: want dot or mermaid", *format)
	}
	return nil
}

// stageLabel lists what a stage is and holds, one item per line. Counts
// that auto sized say so: "workers: 4 (auto)", "cpu_bandwidth×2 of 8
// (auto)".
func stageLabel(p *runtime.Pipeline, s *runtime.Stage) []string {
	lines := []string{s.Name, s.Type}
	autoCapacity := map[string]int64{}
	for _, a := range p.Auto {
		if a.Stage == nil {
			autoCapacity[a.Resource] = a.Value
		}
	}
	var locks []string
	for _, l := range s.Locks {
		lock := l.Resource
		if l.Weight > 1 {
			lock = fmt.Sprintf("%s×%d", l.Resource, l.Weight)
		}
		if c, ok := autoCapacity[l.Resource]; ok {
			lock += fmt.Sprintf(" of %d (auto)", c)
		}
		locks = append(locks, lock)
	}
	if len(locks) > 0 {
		lines = append(lines, "locks: "+strings.Join(locks, ", "))
	}
	for _, sp := range p.Spans {
		for _, c := range sp.Covered {
			if c == s {
				lines = append(lines, fmt.Sprintf("span: %s (%s→%s)", sp.Resource, sp.From.Name, sp.To.Name))
			}
		}
	}
	w := fmt.Sprintf("workers: %d", s.Workers)
	if s.DeviceBound {
		w += " per device"
	}
	if s.WorkersAuto {
		w += " (auto)"
	}
	return append(lines, w)
}

func writeDOT(w io.Writer, p *runtime.Pipeline) {
	fmt.Fprintf(w, "digraph %q {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n", p.Name)
	for _, s := range p.Stages {
		label := strings.ReplaceAll(strings.Join(stageLabel(p, s), "\n"), `"`, `\"`)
		style := ""
		if s.DeviceBound {
			style = `, style="rounded,filled", fillcolor="#e8f0fe"`
		}
		fmt.Fprintf(w, "  %q [label=\"%s\"%s];\n", s.Name, strings.ReplaceAll(label, "\n", `\n`), style)
	}
	for _, s := range p.Stages {
		for _, n := range s.Needs {
			fmt.Fprintf(w, "  %q -> %q;\n", n.Name, s.Name)
		}
	}
	fmt.Fprintln(w, "}")
}

func writeMermaid(w io.Writer, p *runtime.Pipeline) {
	fmt.Fprintln(w, "flowchart LR")
	for _, s := range p.Stages {
		label := strings.ReplaceAll(strings.Join(stageLabel(p, s), "<br/>"), `"`, "#quot;")
		fmt.Fprintf(w, "  %s[\"%s\"]\n", s.Name, label)
	}
	for _, s := range p.Stages {
		for _, n := range s.Needs {
			fmt.Fprintf(w, "  %s --> %s\n", n.Name, s.Name)
		}
	}
}
