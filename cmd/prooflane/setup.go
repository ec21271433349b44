package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("setup", command{summary: "create and cache the key of a proof family's circuit (or pipeline) and size", run: runSetup})
}

func runSetup(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("setup", "", stderr)
	var cf circuitFlags
	cf.register(fs)
	cf.registerCCS(fs)
	force := fs.Bool("force", false, "run the setup again even when keys are cached, replacing their files (the fix for a corrupt key file); "+
		"a groth16 setup, this one or any, makes the keys for a whole cached .r1cs (the compiled circuit) without compiling again: delete the .r1cs to compile afresh after changing a circuit's code")
	pipeline := fs.String("pipeline", "groth16", "set up the key of this pipeline's proof family: "+pipelineArgHelp)
	backend := fs.String("backend", "cpu", backendHelp+"; where the key is made: cpu runs gnark's setup on the host, cuda prooflane's with Groth16's bases on GPU 0")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "setup takes no arguments, got %q", fs.Args())
	}
	if err := checkBackend(*backend); err != nil {
		return err
	}
	p, err := loadPipeline(*pipeline, setFlags{})
	if err != nil {
		return err
	}
	pp, err := proofFamily(p)
	if err != nil {
		return err
	}
	// Ctrl-C or SIGTERM during a setup of minutes: exit 1 saying so, with
	// nothing written to the cache.
	ctx, stop := signalContext()
	defer stop()
	req, err := cf.request(ctx, fs, p, pp.Family)
	if err != nil {
		return err
	}
	req.Force = *force
	if !req.Force {
		k, err := pp.Family.Load(ctx, req)
		if err == nil {
			printKey(stdout, k, "")
			return nil
		}
		if !errors.Is(err, family.ErrNotCached) {
			fmt.Fprintf(stderr, "prooflane setup: %v; running the setup again\n", err)
		}
	}
	return makeKey(ctx, pp.Family, req, *backend, stdout, stderr)
}

// makeKey runs fp's setup of req's key on the backend named, replacing
// what the cache holds, and says what it made.
func makeKey(ctx context.Context, fp family.Prover, req family.KeyRequest, backend string, stdout, stderr io.Writer) error {
	req.Force, req.OnDevice = true, ownMemory(backend)
	if err := checkHostMemory(stderr, "setup", fp, req, nil, 0); err != nil {
		return err
	}
	be, err := openBackend("setup", backend, 1, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	// On a backend of real devices the key is made there; on one that
	// emulates them on the host (cpu), by gnark's setup.
	if be.Memory().OwnMemory() {
		req.Backend = be
	}
	start := time.Now()
	k, err := fp.Setup(ctx, req, stderr)
	if err != nil {
		return err
	}
	printKey(stdout, k, fmt.Sprintf("%.1fs", time.Since(start).Seconds()))
	return nil
}

// printKey says which key setup made in took (a duration), or found
// cached when took is empty, and its files.
func printKey(stdout io.Writer, k family.Key, took string) {
	files := strings.Join(k.Files(), ", ")
	sys := k.System()
	what := fmt.Sprintf("circuit %q size %d", sys.Name, sys.Size)
	if family.IsCompiled(sys.Name) {
		what = "constraint system " + sys.Name
	}
	if took == "" {
		fmt.Fprintf(stdout, "keys for %s already cached (%d constraints): %s (--force to redo)\n", what, k.Constraints(), files)
		return
	}
	fmt.Fprintf(stdout, "%s: %d constraints, setup in %s: %s\n", what, k.Constraints(), took, files)
}
