package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/stages/family"
)

// memSkipEnvVariable set to 1 skips the host memory check.
const memSkipEnvVariable = "PROOFLANE_SKIP_MEMCHECK"

// checkHostMemory asks fp (a family.MemoryEstimator) for the host memory
// a job of req's key with inFlight partitions at once needs (the key setup
// included when it has to run), and refuses before any work when it
// exceeds the machine's memory; above what is available now it warns. A
// family without an estimate, or PROOFLANE_SKIP_MEMCHECK=1, skips it.
func checkHostMemory(stderr io.Writer, cmd string, fp family.Prover, req family.KeyRequest, inFlight int) error {
	me, ok := fp.(family.MemoryEstimator)
	if !ok || os.Getenv(memSkipEnvVariable) == "1" {
		return nil
	}
	est, setup := me.HostMemory(req, inFlight)
	if est == 0 {
		return nil
	}
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
			req.Size, what, humanBytes(est), humanBytes(total), memSkipEnvVariable)
	}
	note := ""
	if est > avail {
		note = fmt.Sprintf("; more than the %s available now: the machine may swap", humanBytes(avail))
	}
	fmt.Fprintf(stderr, "prooflane %s: size %d with %s: about %s of host memory of %s%s\n", cmd, req.Size, what, humanBytes(est), humanBytes(total), note)
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
