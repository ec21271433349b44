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
)

// setFlags collects repeated --set name=value pipeline parameters: the
// one --set flag type of every command.
type setFlags map[string]string

func (s setFlags) String() string {
	parts := make([]string, 0, len(s))
	for k, v := range s {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// newSetFlag registers --set on fs, overriding the parameters of of ("the
// pipeline", "every pipeline").
func newSetFlag(fs *flag.FlagSet, of string) setFlags {
	s := setFlags{}
	fs.Var(s, "set", "override a parameter of "+of+", `name=value` (repeatable)")
	return s
}

// backendHelp is the --backend flag's help, the same in every command.
const backendHelp = "device backend: cpu (gnark-crypto, emulated devices), cuda (needs a -tags cuda build and a GPU), or auto (cuda when it has a device, else cpu)"

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
	return loadPipelineWith(arg, runtime.LoadOptions{Params: params})
}

// loadPipelineWith is loadPipeline with the loader's options: the devices
// and cores auto counts are sized for. A problem of the --set overrides
// (an unknown parameter, a value no parameter takes) makes the error a
// usage mistake (exit 2); the problems still say which.
func loadPipelineWith(arg string, opts runtime.LoadOptions) (*runtime.Pipeline, error) {
	file, src, err := pipelineSource(arg)
	if err != nil {
		return nil, err
	}
	p, err := runtime.ParseWith(file, src, shipped.stages(), opts)
	if ve := (*runtime.ValidationError)(nil); errors.As(err, &ve) && ve.InOverrides() {
		return nil, usageError{err: err}
	}
	return p, err
}

// pipelineSource is pipelines.Source, with an argument that names neither
// a file nor an embedded pipeline a usage mistake (exit 2): a typo, whose
// message names the closest embedded pipeline.
func pipelineSource(arg string) (file string, src []byte, err error) {
	file, src, err = pipelines.Source(arg)
	if errors.Is(err, pipelines.ErrNotFound) {
		return "", nil, usageError{err: err}
	}
	return file, src, err
}

// Upper limits of the count flags that are not the runtime's own.
const (
	// maxJobs bounds --jobs: jobs are started one after another as earlier
	// ones end, so this only keeps a typo from running for ever.
	maxJobs = 1_000_000
	// maxInFlight bounds --inflight and --in-flight: each job in flight
	// holds its partitions' results and its own admitted partitions.
	maxInFlight = 256
	// maxSizeLog2 bounds --size: 2^28 constraints. The chain circuit's
	// FFT domain and proving key grow with it (a 2^28 key is tens of GiB);
	// 2^30 would need more memory than any machine this runs on.
	maxSizeLog2 = 28
	// maxGnarkProofs bounds bench --gnark: gnark's own prover runs one
	// proof after another, seconds each at 2^20.
	maxGnarkProofs = 1000
)

// countLimits are the largest values of the count flags, with what the
// limit is called in errors.
var countLimits = map[string]struct {
	max  int
	name string
}{
	"partitions": {runtime.MaxPartitions, "the limit on partitions per job"},
	"devices":    {runtime.MaxDevices, "the limit on devices"},
	"cores":      {runtime.MaxCores, "the limit on cores"},
	"jobs":       {maxJobs, "the limit on jobs per run"},
	"inflight":   {maxInFlight, "the limit on jobs in flight"},
	"in-flight":  {maxInFlight, "the limit on jobs in flight"},
}

// checkCounts rejects a value below 1 given explicitly to one of the named
// count flags, whose default 0 means "the pipeline's" (or the trace's):
// --partitions 0 or --devices -1 is a mistake, not a request for the
// default. It also rejects a value above the flag's limit (countLimits),
// before anything of that size is allocated.
func checkCounts(fs *flag.FlagSet, names ...string) error {
	var errs []error
	fs.Visit(func(f *flag.Flag) { // only flags given: defaults are in range
		if !slices.Contains(names, f.Name) {
			return
		}
		n, err := strconv.Atoi(f.Value.String())
		if err != nil {
			return
		}
		if lim, ok := countLimits[f.Name]; ok && n > lim.max {
			errs = append(errs, fmt.Errorf("--%s %d: above %d, %s", f.Name, n, lim.max, lim.name))
		} else if n < 1 {
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

// filesFlag is a flag given once a file (--witness A --witness B).
type filesFlag []string

func (f *filesFlag) String() string { return strings.Join(*f, ",") }

func (f *filesFlag) Set(v string) error {
	if v == "" {
		return errors.New("want a file")
	}
	*f = append(*f, v)
	return nil
}
