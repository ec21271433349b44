package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/device"
	devcuda "github.com/prooflane/prooflane/device/cuda"
)

// autoBackend is --backend's policy of the CLI: the first of
// autoOrder that opens, saying why each before it did not.
const autoBackend = "auto"

// autoOrder is what auto tries, in order.
var autoOrder = []string{"cuda", "cpu"}

// checkBackend checks a --backend value: a backend of the registry
// (one this build lacks included: opening it says why) or auto.
func checkBackend(name string) error {
	names := shipped.backends().Names()
	if name == autoBackend || slices.Contains(names, name) {
		return nil
	}
	return fmt.Errorf("--backend %q: want %s or %s", name, strings.Join(names, ", "), autoBackend)
}

// openBackend opens the device backend called name for n devices, with
// its options from the environment (backendEnv); auto tries autoOrder's
// in turn, and cmd names the command in the message of a fall back. A
// bad option is an error, never a reason to fall back.
func openBackend(cmd, name string, n int, stderr io.Writer) (device.Backend, error) {
	names := []string{name}
	if name == autoBackend {
		names = autoOrder
	}
	var be device.Backend
	var err error
	for i, name := range names {
		var opts any
		if env, ok := backendEnv[name]; ok {
			if opts, err = env(); err != nil {
				return nil, err
			}
		}
		if be, err = shipped.backends().Open(name, n, opts); err == nil || i == len(names)-1 {
			break
		}
		fmt.Fprintf(stderr, "prooflane %s: %v; using the %s backend\n", cmd, err, names[i+1])
	}
	return be, err
}

// ownMemory reports whether the devices of backend name have memory of
// their own (its memory model's OwnMemory), before it is opened: a
// job's host memory estimate counts less then. auto, or a backend this
// build lacks, is taken as not (the larger estimate).
func ownMemory(name string) bool {
	m, err := shipped.backends().Model(name, nil)
	return err == nil && m.OwnMemory()
}

// backendEnv is, by backend, its options from the environment: the CLI
// is the one place that reads them (docs/gpu.md).
var backendEnv = map[string]func() (any, error){
	"cuda": func() (any, error) { return cudaOptions(os.Getenv) },
}

// cudaEnv is the PROOFLANE_CUDA_* variables, each with the option it
// sets; a variable unset or empty leaves its option at the default.
var cudaEnv = []struct {
	name string
	set  func(o *devcuda.Options, v string) error
}{
	{"PROOFLANE_CUDA_MSM_C", func(o *devcuda.Options, v string) (err error) {
		o.MSMWindow, err = atoi(v, "a window of 4 to 24")
		return err
	}},
	{"PROOFLANE_CUDA_MSM_ACCUM", func(o *devcuda.Options, v string) error {
		switch v {
		case "affine":
			o.Accum = devcuda.AccumAffine
		case "xyzz":
			o.Accum = devcuda.AccumXYZZ
		default:
			return fmt.Errorf("want affine or xyzz")
		}
		return nil
	}},
	// After MSM_ACCUM: 0 turns the batch-affine accumulation off for
	// every MSM, whatever MSM_ACCUM says.
	{"PROOFLANE_CUDA_AFFINE_MAX", func(o *devcuda.Options, v string) error {
		b, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want a size in bytes (0: none)")
		}
		if b == 0 {
			o.Accum = devcuda.AccumXYZZ
		}
		o.AffineMax = b
		return nil
	}},
	{"PROOFLANE_CUDA_AFFINE_LEVELS", func(o *devcuda.Options, v string) (err error) {
		o.AffineLevels, err = atoi(v, "a number of levels")
		return err
	}},
	{"PROOFLANE_CUDA_SUM_THREADS", func(o *devcuda.Options, v string) (err error) {
		o.SumThreads, err = atoi(v, "a number of threads")
		return err
	}},
	{"PROOFLANE_CUDA_PROFILE", func(o *devcuda.Options, v string) (err error) {
		if o.Profile, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("want 1 or 0")
		}
		return nil
	}},
}

// cudaOptions are the cuda backend's options from the PROOFLANE_CUDA_*
// variables that getenv reads; a value that is not one is an error
// naming the variable.
func cudaOptions(getenv func(string) string) (devcuda.Options, error) {
	var o devcuda.Options
	for _, e := range cudaEnv {
		v := getenv(e.name)
		if v == "" {
			continue
		}
		// Checked alone, so that a value out of range names its variable.
		var one devcuda.Options
		err := e.set(&one, v)
		if err == nil {
			err = one.Validate()
		}
		if err != nil {
			return devcuda.Options{}, fmt.Errorf("%s=%q: %w", e.name, v, err)
		}
		e.set(&o, v)
	}
	return o, nil
}

// atoi reads v as an integer, saying what is wanted when it is not one.
func atoi(v, want string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("want %s", want)
	}
	return n, nil
}
