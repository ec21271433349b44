package keys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/device"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// Setup makes circuit's keys at size and saves them in the cache,
// replacing the keys it holds: what `prooflane setup` runs when the
// cache has no whole keys, and `setup --force` always. The keys are made
// as SetupOn makes them on be (nil: gnark's setup), for the cache's
// compiled circuit when it holds a whole one of circuit at size (said on
// log: "using the compiled circuit in FILE (N constraints); compile
// skipped"), instead of compiling it; a .r1cs cut short, corrupt or not
// the circuit's at the size is not used, and the save replaces it (why
// is said on log). Cancelling ctx stops the setup, writing nothing. The
// phases are the setup's (Phases.Cached when the compile was skipped;
// gnark's setup is one step: only Compile, or Cached and Read).
func (c Cache) Setup(ctx context.Context, circuit string, size int, be device.Backend, log io.Writer) (*Set, Phases, error) {
	if log == nil {
		log = io.Discard
	}
	cached := c.reusable(ctx, circuit, size, log)
	s, ph, err := setupOn(ctx, circuit, size, be, log, cached)
	if err != nil {
		return nil, ph, err
	}
	if err := c.Save(s); err != nil {
		return nil, ph, err
	}
	return s, ph, nil
}

// cachedR1CS is a constraint system a setup makes keys for instead of
// compiling the circuit: read from the key cache (info is its file's), or
// a compiled one given (info nil: saved with the keys).
type cachedR1CS struct {
	sys *cs.R1CS
	// info is the file's as it was read (under the lock).
	info os.FileInfo
	// read is the time reading and checking it took.
	read time.Duration
}

// inFile says the system is the cache's file: a setup of it does not
// write it again.
func (c *cachedR1CS) inFile() bool { return c != nil && c.info != nil }

// reusable returns the cache's constraint system of circuit at size when
// a setup can use it instead of compiling: its file is whole (the
// checksum trailer verifies and gnark decodes it, under the entry's
// shared lock so no save of it is halfway), its commitment info is well
// formed (groth16.CheckSupported), and it has the constraint count the
// circuit compiles to at the size
// (workloads.Instance.Constraints): a file of another circuit or size is
// not used. It says on log that it is used, or why not; nil, saying
// nothing, when the cache holds none.
func (c Cache) reusable(ctx context.Context, circuit string, size int, log io.Writer) *cachedR1CS {
	rp, _, _ := c.Paths(circuit, size)
	start := time.Now()
	r, err := c.readCached(ctx, circuit, size, log)
	if errors.Is(err, ErrNotCached) {
		return nil
	}
	if err != nil {
		// The advice to run setup --force is what this setup does.
		why := strings.Replace(err.Error(), " ("+setupAgain+")", "", 1)
		fmt.Fprintf(log, "not using the compiled circuit in %s, compiling it again: %s\n", rp, why)
		return nil
	}
	r.read = time.Since(start)
	fmt.Fprintf(log, "using the compiled circuit in %s (%d constraints); compile skipped\n", rp, r.sys.GetNbConstraints())
	return r
}

// readCached reads and checks the cache's constraint system of circuit
// at size for reusable.
func (c Cache) readCached(ctx context.Context, circuit string, size int, log io.Writer) (*cachedR1CS, error) {
	rp, _, _ := c.Paths(circuit, size)
	r := &cachedR1CS{sys: new(cs.R1CS)}
	err := func() error {
		release, err := lockFile(ctx, c.lockPath(circuit, size), false, c.waiting(circuit, size, log))
		if err != nil {
			return err
		}
		defer release()
		if err := readKeyFile(ctx, rp, true, r1csDecoder(r.sys)); err != nil {
			return err
		}
		r.info, err = os.Stat(rp)
		return err
	}()
	if err != nil {
		return nil, err
	}
	if err := groth16.CheckSupported(circuit, r.sys); err != nil {
		return nil, err
	}
	inst, err := workloads.New(groth16.Curve, circuit, size)
	if err != nil {
		return nil, err
	}
	if got, want := r.sys.GetNbConstraints(), inst.Constraints(); got != want {
		return nil, fmt.Errorf("it has %d constraints, circuit %q size %d compiles to %d", got, circuit, size, want)
	}
	return r, nil
}
