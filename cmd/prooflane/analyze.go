package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/lockstats"
)

func init() {
	register("analyze", command{
		summary: "report GPU idle time, lock waits and the critical path of a trace; write an HTML timeline or a Perfetto file",
		run:     runAnalyze,
	})
}

func runAnalyze(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("analyze", "TRACE (prooflane's trace.jsonl, OTLP JSON lines, or a Jaeger JSON export)", stderr)
	html := fs.String("html", "", "also write a self-contained HTML timeline and report to this `file`")
	perfetto := fs.String("perfetto", "", "also write Chrome trace events (open in ui.perfetto.dev or chrome://tracing) to this `file`")
	busy := fs.String("busy-stage", "", "count the runs of this stage name or type suffix as device busy, instead of the stages the trace declares busy (prooflane.device_busy)")
	gap := fs.Duration("gap", 10*time.Millisecond, "list device idle gaps longer than this")
	quiet := fs.Bool("q", false, "print no text report (with --html or --perfetto)")
	timeline := fs.Int("timeline-spans", analyze.DefaultTimelineSpans, "draw at most this many spans in --html and --perfetto: the trace's start, every span in it (the tables cover the whole trace)")
	asJSON := fs.Bool("json", false, "print the report as JSON (schema "+analyze.JSONSchema+", docs/observability.md) instead of text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "want one trace file, got %d arguments", fs.NArg())
	}
	if *timeline < 1 {
		return usageErrorf(fs, "--timeline-spans %d: want at least 1", *timeline)
	}
	if *html == "" && *perfetto == "" {
		*timeline = -1 // nothing draws the timeline: keep none of its spans
	}
	path := fs.Arg(0)
	rep, err := analyze.AnalyzeFile(path, analyze.Options{BusyStage: *busy, MinGap: *gap, TimelineSpans: *timeline})
	if err != nil {
		return err
	}
	switch {
	case *asJSON:
		if err := rep.WriteJSON(stdout); err != nil {
			return err
		}
	case !*quiet:
		if err := rep.WriteText(stdout); err != nil {
			return err
		}
	}
	if *html != "" {
		title := "prooflane trace " + filepath.Base(path)
		if err := writeReportFile(*html, func(w io.Writer) error { return rep.WriteHTML(w, title) }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", *html)
	}
	if *perfetto != "" {
		if err := writeReportFile(*perfetto, rep.WritePerfetto); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s (open it in ui.perfetto.dev or chrome://tracing)\n", *perfetto)
	}
	if tl := rep.Timeline(); tl.Partial() && (*html != "" || *perfetto != "") {
		fmt.Fprintf(stderr, "prooflane analyze: the timeline draws the first %s of the trace, %d of its %d spans; --timeline-spans %d draws them all\n",
			lockstats.Dur(tl.Window), tl.Shown, tl.Total, tl.Total)
	}
	return nil
}

// writeReportFile creates path and writes it with fn, reporting the first error
// of writing or closing.
func writeReportFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
