package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/consensys/gnark/logger"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/circuits"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

func init() {
	register("setup", command{summary: "create and cache the keys of a shipped Groth16 circuit, or of another proof family's pipeline, and size", run: runSetup})
}

// circuitFlags are the flags naming a circuit and its key cache.
type circuitFlags struct {
	circuit string
	size    string
	keys    string
}

func (c *circuitFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&c.circuit, "circuit", "chain", "circuit: one of "+strings.Join(circuits.Names(), ", "))
	fs.StringVar(&c.size, "size", "2^12", "about how many constraints: 4096 or 2^12")
	fs.StringVar(&c.keys, "keys", keys.DefaultDir(), "key cache directory")
}

func (c *circuitFlags) parse() (int, error) {
	f, err := circuits.Lookup(c.circuit)
	if err != nil {
		return 0, usageErrorf(nil, "--circuit: %w", err)
	}
	n, err := parseSize(c.size)
	if err != nil {
		return 0, usageErrorf(nil, "--size: %w", err)
	}
	if n < f.MinSize {
		return 0, usageErrorf(nil, "--size %s: circuit %q needs a size of at least %d", c.size, c.circuit, f.MinSize)
	}
	return n, nil
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

func runSetup(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("setup", "", stderr)
	var cf circuitFlags
	cf.register(fs)
	force := fs.Bool("force", false, "run the setup again even when keys are cached, replacing their files (the fix for a corrupt key file)")
	pipeline := fs.String("pipeline", "", "set up the key of this pipeline's proof family instead of a Groth16 circuit's: "+pipelineArgHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "setup takes no arguments, got %q", fs.Args())
	}
	if *pipeline != "" {
		p, err := loadPipeline(*pipeline, setFlags{})
		if err != nil {
			return err
		}
		fam, err := proofFamily(p)
		if err != nil {
			return err
		}
		if fp, ok := fam.(family.Prover); ok {
			if *force {
				return usageErrorf(fs, "--force: pipeline %q is of the %s family, whose key cache is not redone in place (remove its key file instead)", p.Name, fp.Name())
			}
			return setupFamily(stdout, stderr, fs, cf, p, fp)
		}
	}
	size, err := cf.parse()
	if err != nil {
		return err
	}
	cache := keys.Cache{Dir: cf.keys}
	rp, pp, vp := cache.Paths(cf.circuit, size)
	if !*force {
		if s, err := cache.Load(cf.circuit, size); err == nil {
			fmt.Fprintf(stdout, "keys for circuit %q size %d already cached (%d constraints): %s, %s, %s (--force to redo)\n",
				cf.circuit, size, s.R1CS.GetNbConstraints(), rp, pp, vp)
			return nil
		} else if !errors.Is(err, keys.ErrNotCached) {
			fmt.Fprintf(stderr, "prooflane setup: %v; running the setup again\n", err)
		}
	}
	if err := checkHostMemory(stderr, "setup", cf, size, 0, true); err != nil {
		return err
	}
	// Ctrl-C or SIGTERM during a setup of minutes: exit 1 saying so, with
	// nothing written to the cache.
	ctx, stop := signalContext()
	defer stop()
	fmt.Fprintf(stderr, "prooflane setup: setting up circuit %q size %d (Ctrl-C stops it, writing nothing)\n", cf.circuit, size)
	start := time.Now()
	s, err := keys.SetupLogged(ctx, cf.circuit, size, stderr)
	if err != nil {
		return err
	}
	if err := cache.Save(s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "circuit %q size %d: %d constraints, setup in %.1fs; wrote %s, %s, %s\n",
		cf.circuit, size, s.R1CS.GetNbConstraints(), time.Since(start).Seconds(), rp, pp, vp)
	return nil
}

// setupFamily makes (or finds cached) the key of a family.Prover of the
// size in cf, for pipeline p.
func setupFamily(stdout, stderr io.Writer, fs *flag.FlagSet, cf circuitFlags, p *runtime.Pipeline, fp family.Prover) error {
	size, err := familySize(fs, cf, p, fp)
	if err != nil {
		return err
	}
	req := family.KeyRequest{Dir: cf.keys, Size: size}
	if k, err := fp.Load(context.Background(), req); err == nil {
		fmt.Fprintf(stdout, "%s key of size %d already cached in %s: %s\n", fp.Name(), size, cf.keys, k.Name())
		return nil
	}
	start := time.Now()
	k, err := fp.Setup(context.Background(), req, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s key of size %d: %s, set up in %.1fs into %s\n", fp.Name(), size, k.Name(), time.Since(start).Seconds(), cf.keys)
	return nil
}

// openJob opens the device backend, loads (or sets up, until ctx is
// cancelled) the circuit's keys and builds a job of n partitions for
// command cmd. The caller closes the backend.
func openJob(ctx context.Context, cmd string, cf circuitFlags, size, n int, seed uint64, backend string, devices int, stderr io.Writer) (*keys.Set, device.Backend, *groth16.Job, error) {
	// The backend first: a missing GPU should not wait for a key setup
	// that can take minutes at large sizes.
	be, err := openBackend(cmd, backend, devices, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	ks, err := keys.Cache{Dir: cf.keys}.LoadOrSetup(ctx, cf.circuit, size, stderr)
	if err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	job, err := ks.NewJob(n, seed)
	if err != nil {
		be.Close()
		return nil, nil, nil, err
	}
	return ks, be, job, nil
}
