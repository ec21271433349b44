package main

// What prove, verify, setup and bench share: a pipeline's proof family,
// the key request the --circuit, --size and --keys flags make for it, the
// host memory check, and a job on an open backend. Nothing here names a
// family: each is driven through stages/family.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/consensys/gnark/logger"

	"github.com/prooflane/prooflane/device"
	devbuiltin "github.com/prooflane/prooflane/device/builtin"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// shipped are the stage types, proof families and device backends the
// commands know: the builtin ones. Tests swap in registries of their own
// (a fake family goes through prove and verify, a fake backend is opened
// by --backend, with no edit here).
var shipped = struct {
	stages   func() *stages.Registry
	families func() *family.Registry
	backends func() *device.Registry
}{builtin.Registry, builtin.Families, devbuiltin.Registry}

// circuitFlags are the flags naming a key: circuit, size and key cache.
type circuitFlags struct {
	circuit string
	size    string
	keys    string
}

func (c *circuitFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.circuit, "circuit", "chain", "circuit of the pipeline's proof family ("+circuitHelp()+")")
	fs.StringVar(&c.size, "size", "2^12", "about how many constraints: 4096 or 2^12")
	fs.StringVar(&c.keys, "keys", keys.DefaultDir(), "key cache directory")
}

// provers returns the shipped families the commands drive (those that
// are family.Provers), by name.
func provers() []family.Prover {
	var out []family.Prover
	fams := shipped.families()
	for _, n := range fams.Names() {
		f, _ := fams.Lookup(n)
		if fp, ok := f.(family.Prover); ok {
			out = append(out, fp)
		}
	}
	return out
}

// circuitHelp lists each shipped family's circuits, its default first.
func circuitHelp() string {
	var parts []string
	for _, fp := range provers() {
		if len(fp.Circuits()) > 0 {
			parts = append(parts, fp.Name()+": "+strings.Join(fp.Circuits(), ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// request is the key request of the flags for pipeline p of family fp:
// --circuit only when given (else the family's default), refused for a
// family without circuits; --size within the family's bounds for it.
func (c *circuitFlags) request(fs *flag.FlagSet, p *runtime.Pipeline, fp family.Prover) (family.KeyRequest, error) {
	req := family.KeyRequest{Dir: c.keys}
	if flagGiven(fs, "circuit") {
		if len(fp.Circuits()) == 0 {
			return req, usageErrorf(fs, "--circuit %q: pipeline %q is of the %s family, which has no circuits (leave --circuit out)", c.circuit, p.Name, fp.Name())
		}
		req.Circuit = c.circuit
	}
	lo, hi, err := fp.SizeRange(req.Circuit)
	if err != nil {
		return req, usageErrorf(nil, "--circuit: %w", err)
	}
	if req.Size, err = parseSize(c.size); err != nil {
		return req, usageErrorf(nil, "--size: %w", err)
	}
	switch {
	case req.Size < lo && len(fp.Circuits()) > 0:
		circuit, _ := family.CheckCircuit(fp, family.KeyRequest{Circuit: req.Circuit, Size: lo})
		return req, usageErrorf(nil, "--size %s: circuit %q needs a size of at least %d", c.size, circuit, lo)
	case req.Size < lo || req.Size > hi:
		return req, usageErrorf(fs, "--size %s: want %d to %d, the %s family's limit on sizes", c.size, lo, hi, fp.Name())
	}
	return req, nil
}

// flagGiven reports whether the flag called name was set on the command
// line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// proofFamily returns p's proof family, refusing a pipeline of no one
// family (naming the embedded pipelines that have one) or with no final
// stage that outputs its family's proof.
func proofFamily(p *runtime.Pipeline) (family.Prover, error) {
	if _, err := shipped.families().Of(p); err != nil {
		return nil, fmt.Errorf("%w; use a pipeline of a proof family, such as the embedded %s", err, strings.Join(provingPipelines(), ", "))
	}
	return proverOf(p)
}

// provingPipelines names the embedded pipelines that make proofs the
// commands drive, as --pipeline takes them.
func provingPipelines() []string {
	var names []string
	for _, info := range pipelines.List() {
		if p, err := loadPipeline(info.Name, nil); err == nil {
			if _, err := proverOf(p); err == nil {
				names = append(names, info.Name)
			}
		}
	}
	return names
}

// proverOf returns p's family when the commands drive it and p has a final
// stage that outputs its proof.
func proverOf(p *runtime.Pipeline) (family.Prover, error) {
	f, err := shipped.families().Of(p)
	if err != nil {
		return nil, err
	}
	fp, ok := f.(family.Prover)
	if !ok {
		return nil, fmt.Errorf("%s: pipeline %q is of the %s family, which prove, verify, setup and bench do not drive (it is no family.Prover)", p.File, p.Name, f.Name())
	}
	if len(family.FinalProofStages(p, f)) == 0 {
		return nil, fmt.Errorf("%s: pipeline %q makes no %s proof: none of its final stages outputs %s", p.File, p.Name, f.Name(), f.ProofType())
	}
	return fp, nil
}

// openJob opens the device backend, loads (or sets up, until ctx is
// cancelled) fp's key of req and builds its job of n partitions from seed,
// for command cmd. The caller closes the backend.
func openJob(ctx context.Context, cmd string, fp family.Prover, req family.KeyRequest, n int, seed uint64, backend string, devices int, plan devicePlan, stderr io.Writer) (family.Key, device.Backend, family.Job, error) {
	// The backend first: a missing GPU, or one too small, should not wait
	// for a key setup that can take minutes at large sizes.
	be, err := openBackend(cmd, backend, devices, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkDeviceMemory(stderr, cmd, fp, req, plan, be); err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	// A key not yet cached is made on the device when there is one, as
	// setup --backend cuda makes it; a backend emulating its devices on
	// the host (cpu) keeps gnark's setup.
	if be.Memory().OwnMemory() {
		req.Backend = be
	}
	k, err := fp.Setup(ctx, req, stderr)
	if err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	j, err := k.NewJob(n, seed)
	if err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	return k, be, j, nil
}

// devicePlan is what the device memory check needs of a run: the
// effective parameters of its pipelines (the largest estimate counts)
// and the partitions on one device at once.
type devicePlan struct {
	params    []map[string]string
	perDevice int
	// set is the user's --set params. reload, when not nil, loads the
	// run's pipelines again with override set too, for the run to use.
	set    map[string]string
	reload func(override map[string]string) error
}

// planOf is the plan of pipelines ps running inFlight partitions at once
// over devices devices.
func planOf(ps []*runtime.Pipeline, inFlight, devices int, set map[string]string, reload func(map[string]string) error) devicePlan {
	plan := devicePlan{perDevice: (max(inFlight, 1) + max(devices, 1) - 1) / max(devices, 1), set: set, reload: reload}
	for _, p := range ps {
		plan.params = append(plan.params, p.Params)
	}
	return plan
}

// printAuto says on stderr, one line, what p's auto counts become on an
// engine of devices devices when that is not the count the pipeline was
// loaded for (validate shows them for any machine).
func printAuto(stderr io.Writer, cmd string, p *runtime.Pipeline, devices int) {
	autos := p.AutoOn(devices)
	if len(autos) == 0 || devices == p.Devices {
		return
	}
	parts := make([]string, len(autos))
	for i, a := range autos {
		parts[i] = a.String()
	}
	fmt.Fprintf(stderr, "prooflane %s: %s: %s (a number in the pipeline or --set fixes them)\n", cmd, p.Name, strings.Join(parts, "; "))
}

// quietGnark turns off gnark's own logging (compile and solver progress
// on stdout), which would bury prooflane's one-line summaries.
func quietGnark() { logger.Disable() }

// parseSize reads "4096" or "2^12".
func parseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	if base, exp, ok := strings.Cut(s, "^"); ok {
		e, err := strconv.Atoi(exp)
		if base == "2" && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(exp, "-") {
			e, err = maxSizeLog2+1, nil // far above the limit, said as such below
		}
		if base != "2" || err != nil || e < 0 {
			return 0, fmt.Errorf("%q: want a number like 4096 or a power of two like 2^12", s)
		}
		if e > maxSizeLog2 {
			return 0, fmt.Errorf("%q: above 2^%d, the limit on sizes", s, maxSizeLog2)
		}
		return 1 << e, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil && !errors.Is(err, strconv.ErrRange) || n < 1 {
		return 0, fmt.Errorf("%q: want a number like 4096 or a power of two like 2^12", s)
	}
	if err != nil || n > 1<<maxSizeLog2 {
		return 0, fmt.Errorf("%q: above 2^%d (%d), the limit on sizes", s, maxSizeLog2, 1<<maxSizeLog2)
	}
	return n, nil
}
