// Command tracegen writes a synthetic prooflane trace of at least N spans
// (package tracegen says what it holds), for trying `prooflane analyze` on
// a trace of any size:
//
//	go run ./otel/tracegen/cmd/tracegen -spans 1000000 -o big.jsonl
//	prooflane analyze big.jsonl
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/prooflane/prooflane/otel/tracegen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status: 2 for a usage mistake,
// 1 for another failure.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tracegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg tracegen.Config
	fs.IntVar(&cfg.Spans, "spans", 0, "write whole jobs until the trace has at least this many spans (required)")
	fs.IntVar(&cfg.Devices, "devices", 2, "devices the partitions are spread over")
	fs.IntVar(&cfg.Partitions, "partitions", 10, "partitions of each job")
	fs.IntVar(&cfg.Inflight, "inflight", 2, "jobs in flight at once")
	fs.IntVar(&cfg.FailEvery, "fail-every", 40, "fail every n-th upload once (it is retried); -1 for none")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the durations and ids")
	out := fs.String("o", "", "trace `file` to write (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "tracegen: want -spans N and -o FILE, and no arguments")
		fs.Usage()
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "tracegen: %v\n", err)
		return 2
	}
	truth, err := writeFile(*out, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "tracegen: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d spans, %d jobs, %d partitions\n", *out, truth.Spans, truth.Jobs, truth.Partitions)
	return 0
}

// writeFile writes the trace whole or not at all: a temporary file in the
// same folder, synced, then renamed.
func writeFile(path string, cfg tracegen.Config) (*tracegen.Truth, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".tracegen-*")
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	truth, err := tracegen.Write(bw, cfg)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(f.Name()))
	}
	return truth, nil
}
