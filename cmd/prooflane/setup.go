package main

import (
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
	fp, err := proofFamily(p)
	if err != nil {
		return err
	}
	req, err := cf.request(fs, p, fp)
	if err != nil {
		return err
	}
	req.Force = *force
	// Ctrl-C or SIGTERM during a setup of minutes: exit 1 saying so, with
	// nothing written to the cache.
	ctx, stop := signalContext()
	defer stop()
	if !req.Force {
		k, err := fp.Load(ctx, req)
		if err == nil {
			printKey(stdout, fp, k, req.Size, "", cf.keys)
			return nil
		}
		if !errors.Is(err, family.ErrNotCached) {
			fmt.Fprintf(stderr, "prooflane setup: %v; running the setup again\n", err)
		}
	}
	if err := checkHostMemory(stderr, "setup", fp, family.KeyRequest{Dir: req.Dir, Circuit: req.Circuit, Size: req.Size, Force: true, OnDevice: ownMemory(*backend)}, nil, 0); err != nil {
		return err
	}
	newKey := family.KeyRequest{Dir: req.Dir, Circuit: req.Circuit, Size: req.Size, Force: true}
	be, err := openBackend("setup", *backend, 1, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	// On a backend of real devices the key is made there; on one that
	// emulates them on the host (cpu), by gnark's setup.
	if be.Memory().OwnMemory() {
		newKey.Backend = be
	}
	// setup makes the key, replacing what the cache holds: a family that
	// does not replace a cached key refuses an explicit --force only.
	start := time.Now()
	k, err := fp.Setup(ctx, newKey, stderr)
	if errors.Is(err, family.ErrNoForce) && *force {
		return usageErrorf(fs, "--force: pipeline %q is of the %s family, whose %v", p.Name, fp.Name(), family.ErrNoForce)
	}
	if err != nil {
		return err
	}
	printKey(stdout, fp, k, req.Size, fmt.Sprintf("%.1fs", time.Since(start).Seconds()), cf.keys)
	return nil
}

// printKey says which key of size setup made in took (a duration), or
// found cached when took is empty, and its files in the cache dir.
func printKey(stdout io.Writer, fp family.Prover, k family.Key, size int, took, dir string) {
	files := strings.Join(k.Files(), ", ")
	switch {
	case len(fp.Circuits()) == 0 && took == "":
		fmt.Fprintf(stdout, "%s key of size %d already cached in %s: %s\n", fp.Name(), size, dir, k.Name())
	case len(fp.Circuits()) == 0:
		fmt.Fprintf(stdout, "%s key of size %d: %s, set up in %s into %s\n", fp.Name(), size, k.Name(), took, dir)
	case took == "":
		fmt.Fprintf(stdout, "keys for circuit %q size %d already cached (%d constraints): %s (--force to redo)\n", k.Circuit(), size, k.Constraints(), files)
	default:
		fmt.Fprintf(stdout, "circuit %q size %d: %d constraints, setup in %s: %s\n", k.Circuit(), size, k.Constraints(), took, files)
	}
}
