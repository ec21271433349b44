package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// Host memory estimate, per constraint of the circuit (its size), from
// peak RSS measured with /usr/bin/time on the chain circuit (CPU backend,
// 2-core machine; docs/memory.md has the table and the command). It is a
// rough upper bound for circuits of about one wire per constraint; the
// scale work refines it.
const (
	memBase            = 64 << 20 // the process, gnark and the runtime
	memSetupPerC       = 3 << 10  // setup: domain, key being built, R1CS
	memKeysPerC        = 2 << 10  // prove: R1CS and proving key in memory
	memPartitionPerC   = 1280     // prove: one partition in flight (witness, a/b/c, H, MSM scalars)
	memCheckFromSize   = 1 << 18  // below this, no estimate is printed and nothing is refused
	memSkipEnvVariable = "PROOFLANE_SKIP_MEMCHECK"
)

// memEstimate returns the estimated peak host memory of proving size
// constraints with inFlight partitions at once, including the setup when
// it has to run.
func memEstimate(size, inFlight int, setup bool) uint64 {
	n := uint64(size)
	prove := memBase + n*memKeysPerC + n*memPartitionPerC*uint64(max(inFlight, 0))
	if setup {
		return max(prove, memBase+n*memSetupPerC)
	}
	return prove
}

// checkHostMemory estimates the host memory a setup (when the keys are not
// cached, or force) and a prove of inFlight partitions at once need, and
// refuses before any work when it exceeds the machine's memory; above
// what is available now it warns. PROOFLANE_SKIP_MEMCHECK=1 skips it.
func checkHostMemory(stderr io.Writer, cmd string, cf circuitFlags, size, inFlight int, force bool) error {
	if size < memCheckFromSize || os.Getenv(memSkipEnvVariable) == "1" {
		return nil
	}
	setup := force
	if !setup {
		_, pk, _ := keys.Cache{Dir: cf.keys}.Paths(cf.circuit, size)
		_, err := os.Stat(pk)
		setup = err != nil
	}
	est := memEstimate(size, inFlight, setup)
	total, avail, err := readMeminfo("/proc/meminfo")
	if err != nil {
		fmt.Fprintf(stderr, "prooflane %s: estimated host memory %s; cannot tell what the machine has: %v\n", cmd, humanBytes(est), err)
		return nil
	}
	var parts []string
	if setup {
		parts = append(parts, "the key setup")
	}
	if inFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d partitions at once", inFlight))
	}
	what := strings.Join(parts, " and ")
	if est > total {
		return fmt.Errorf("size %d with %s needs about %s of host memory, more than this machine's %s (estimate in docs/memory.md; fewer partitions or a smaller --size, or %s=1 to try anyway)",
			size, what, humanBytes(est), humanBytes(total), memSkipEnvVariable)
	}
	note := ""
	if est > avail {
		note = fmt.Sprintf("; more than the %s available now: the machine may swap", humanBytes(avail))
	}
	fmt.Fprintf(stderr, "prooflane %s: size %d with %s: about %s of host memory of %s%s\n", cmd, size, what, humanBytes(est), humanBytes(total), note)
	return nil
}

// readMeminfo returns MemTotal and MemAvailable from a meminfo file.
func readMeminfo(path string) (total, avail uint64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<16))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "MemTotal" && k != "MemAvailable") {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil || kb > 1<<44 {
			return 0, 0, fmt.Errorf("%s: %s: %q is not a size in kB", path, k, v)
		}
		if k == "MemTotal" {
			total = kb << 10
		} else {
			avail = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	if total == 0 {
		return 0, 0, errors.New(path + ": no MemTotal")
	}
	if avail == 0 || avail > total {
		avail = total
	}
	return total, avail, nil
}
