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

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/logger"

	"github.com/prooflane/prooflane/device"
	devbuiltin "github.com/prooflane/prooflane/device/builtin"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/proving"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
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

// circuitFlags are the flags naming a key: a built-in circuit and size,
// or a constraint system file of the user's; and the key cache.
type circuitFlags struct {
	circuit string
	size    string
	keys    string
	ccs     string
	curve   curveFlag
}

// curveFlag is --curve: a curve of family.Curves by name, the default
// when not given.
type curveFlag struct{ id ecc.ID }

func (c *curveFlag) String() string {
	if c == nil || c.id == ecc.UNKNOWN {
		return "" // the flag package's zero value, so that help shows the default
	}
	return family.CurveName(c.id)
}

func (c *curveFlag) Set(s string) error {
	id, err := family.ParseCurve(s)
	if err != nil {
		return err
	}
	c.id = id
	return nil
}

// curveNames lists family.Curves as --curve takes them.
func curveNames() string {
	names := make([]string, len(family.Curves))
	for i, c := range family.Curves {
		names[i] = family.CurveName(c)
	}
	return strings.Join(names, "|")
}

func (c *circuitFlags) register(fs *flag.FlagSet) {
	c.curve.id = family.DefaultCurve
	fs.Var(&c.curve, "curve", "the curve of the keys and proofs ("+curveNames()+")")
	fs.StringVar(&c.circuit, "circuit", workloads.Default, "built-in circuit to prove ("+strings.Join(workloads.Names(), ", ")+")")
	fs.StringVar(&c.size, "size", "2^12", "about how many constraints of the built-in circuit: 4096 or 2^12")
	fs.StringVar(&c.keys, "keys", family.DefaultKeyDir(), "key cache directory")
}

// registerCCS adds --ccs, for the commands that prove or set up a user's
// own circuit.
func (c *circuitFlags) registerCCS(fs *flag.FlagSet) {
	fs.StringVar(&c.ccs, "ccs", "", "FILE: your own circuit's constraint system, as gnark's WriteTo writes it (an R1CS for groth16, a SparseR1CS for plonk), instead of --circuit and --size")
}

// request is the key request of the flags for pipeline p of family fp: a
// built-in circuit (--circuit, else the default) at --size within its and
// the family's bounds; or, with --ccs, the user's constraint system, read
// by the family (checked before anything trusts it) and named by its
// content (family.CompiledSystem).
func (c *circuitFlags) request(ctx context.Context, fs *flag.FlagSet, p *runtime.Pipeline, fp family.Prover) (family.KeyRequest, error) {
	req := family.KeyRequest{Dir: c.keys}
	if c.ccs != "" {
		for _, f := range []string{"circuit", "size"} {
			if flagGiven(fs, f) {
				return req, usageErrorf(fs, "--%s: a built-in circuit's, not for --ccs (your constraint system has its own size)", f)
			}
		}
		ccs, err := fp.ReadSystem(ctx, c.curve.id, c.ccs)
		if err != nil {
			return req, fmt.Errorf("--ccs %s: %w", c.ccs, err)
		}
		if req.System, err = family.CompiledSystem(ccs); err != nil {
			return req, fmt.Errorf("--ccs %s: %w", c.ccs, err)
		}
		if req.System.Size > fp.MaxSize() {
			return req, fmt.Errorf("--ccs %s: %d constraints, above the %s family's limit of %d", c.ccs, req.System.Size, fp.Name(), fp.MaxSize())
		}
		return req, nil
	}
	kind, err := workloads.Lookup(c.circuit)
	if err != nil {
		return req, usageErrorf(fs, "--circuit: %w", err)
	}
	size, err := parseSize(c.size)
	if err != nil {
		return req, usageErrorf(nil, "--size: %w", err)
	}
	switch {
	case size < kind.MinSize:
		return req, usageErrorf(nil, "--size %s: circuit %q needs a size of at least %d", c.size, c.circuit, kind.MinSize)
	case size > fp.MaxSize():
		return req, usageErrorf(fs, "--size %s: want %d to %d, the %s family's limit on sizes", c.size, kind.MinSize, fp.MaxSize(), fp.Name())
	}
	req.System, err = workloads.System(c.curve.id, c.circuit, size)
	return req, err
}

// flagGiven reports whether the flag called name was set on the command
// line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
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

// proofFamily returns p's proof family, refusing a pipeline of no one
// family (naming the embedded pipelines that have one) or with no final
// stage that outputs its family's proof.
func proofFamily(p *runtime.Pipeline) (*proving.Pipeline, error) {
	if _, err := proving.Of(p, shipped.families()); err != nil {
		return nil, fmt.Errorf("%w; use a pipeline of a proof family, such as the embedded %s", err, strings.Join(provingPipelines(), ", "))
	}
	return proving.Resolve(p, shipped.families())
}

// provingPipelines names the embedded pipelines that make proofs the
// commands drive, as --pipeline takes them.
func provingPipelines() []string {
	var names []string
	for _, info := range pipelines.List() {
		if p, err := loadPipeline(info.Name, nil); err == nil {
			if _, err := proving.Resolve(p, shipped.families()); err == nil {
				names = append(names, info.Name)
			}
		}
	}
	return names
}

// jobSource is what a command proves: the key (the cache's, made on
// first use, or the user's own files) and the job's witnesses (a built-in
// circuit's partitions from a seed, or the user's).
type jobSource struct {
	req family.KeyRequest
	// pk and vk are the user's key files (--pk, --vk); "" for the cache's.
	pk, vk string
	// witnesses are the user's (--witness); nil for a built-in circuit's
	// n partitions from seed.
	witnesses []witness.Witness
	n         int
	seed      uint64
}

// key is src's key: the user's files, or the cache's (made on be when a
// backend with devices of their own is open, as setup --backend cuda
// makes it; a backend emulating its devices on the host keeps gnark's
// setup).
func (src jobSource) key(ctx context.Context, fp family.Prover, be device.Backend, stderr io.Writer) (family.Key, error) {
	if src.pk != "" {
		return fp.ReadKeys(ctx, src.req.System, src.pk, src.vk)
	}
	req := src.req
	if be != nil && be.Memory().OwnMemory() {
		req.Backend = be
	}
	return fp.Setup(ctx, req, stderr)
}

// job is src's job on key k.
func (src jobSource) job(k family.Key) (family.Job, error) {
	if src.witnesses != nil {
		return k.NewJob(src.witnesses)
	}
	return workloads.Job(k, src.n, src.seed)
}

// openJob opens the device backend, loads (or sets up, until ctx is
// cancelled) fp's key of src and builds its job, for command cmd. The
// caller closes the backend.
func openJob(ctx context.Context, cmd string, fp family.Prover, src jobSource, backend string, devices int, plan devicePlan, stderr io.Writer) (family.Key, device.Backend, family.Job, error) {
	// The backend first: a missing GPU, or one too small, should not wait
	// for a key setup that can take minutes at large sizes.
	be, err := openBackend(cmd, backend, devices, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkDeviceMemory(stderr, cmd, fp, src.req, plan, be); err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	k, err := src.key(ctx, fp, be, stderr)
	if err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	j, err := src.job(k)
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
