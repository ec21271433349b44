package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
)

// setFlags collects repeated --set name=value pipeline parameters.
type setFlags map[string]string

func (s setFlags) String() string {
	parts := make([]string, 0, len(s))
	for k, v := range s {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (s setFlags) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("want name=value, got %q", kv)
	}
	s[k] = v
	return nil
}

// loadPipeline loads a pipeline file, or an embedded pipeline by name (a
// file that exists wins), against the shipped stage types.
func loadPipeline(arg string, params map[string]string) (*runtime.Pipeline, error) {
	file, src, err := pipelines.Source(arg)
	if err != nil {
		return nil, err
	}
	return runtime.Parse(file, src, builtin.Registry(), params)
}

// checkCounts rejects a value below 1 given explicitly to one of the named
// count flags, whose default 0 means "the pipeline's" (or the trace's):
// --partitions 0 or --devices -1 is a mistake, not a request for the
// default.
func checkCounts(fs *flag.FlagSet, names ...string) error {
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(names, f.Name) {
			return
		}
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n < 1 {
			errs = append(errs, fmt.Errorf("--%s %d: want at least 1 (leave the flag out for the default: %s)", f.Name, n, defaultOf(f)))
		}
	})
	if len(errs) > 0 {
		return usageError{err: errors.Join(errs...)}
	}
	return nil
}

// defaultOf returns what a count flag's usage says its default is.
func defaultOf(f *flag.Flag) string {
	if _, d, ok := strings.Cut(f.Usage, "(default: "); ok {
		return strings.TrimSuffix(d, ")")
	}
	return f.DefValue
}
