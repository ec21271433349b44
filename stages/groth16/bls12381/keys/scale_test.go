package keys

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// scaleBases is the generator multiplication TestSetupAtScale uses: the
// host's, or the CUDA backend's in a cuda build (scale_cuda_test.go).
var scaleBases = func(t *testing.T) cdev.FixedBase { return nil }

// TestSetupAtScale times prooflane's setup (SetupFresh, then Save) per
// phase at the sizes in PROOFLANE_SCALE_SETUP ("chain:22,chain:24", log2
// sizes) into the cache PROOFLANE_SCALE_KEYS (a temporary one without),
// one line each; skipped without it. It measures, it asserts nothing
// beyond the setup succeeding: the keys' correctness is the other
// tests'.
func TestSetupAtScale(t *testing.T) {
	spec := os.Getenv("PROOFLANE_SCALE_SETUP")
	if spec == "" {
		t.Skip("PROOFLANE_SCALE_SETUP not set")
	}
	dir := os.Getenv("PROOFLANE_SCALE_KEYS")
	if dir == "" {
		dir = t.TempDir()
	}
	c := Cache{Dir: dir}
	for _, item := range strings.Split(spec, ",") {
		circuit, lg, ok := strings.Cut(item, ":")
		e, err := strconv.Atoi(lg)
		if !ok || err != nil || e < 1 || e > 28 {
			t.Fatalf("PROOFLANE_SCALE_SETUP item %q: want circuit:log2size", item)
		}
		size := 1 << e
		start := time.Now()
		s, ph, err := SetupFresh(context.Background(), circuit, size, scaleBases(t))
		if err != nil {
			t.Fatal(err)
		}
		made := time.Since(start)
		if err := c.Save(s); err != nil {
			t.Fatal(err)
		}
		total := time.Since(start)
		_, pp, _ := c.Paths(circuit, size)
		st, err := os.Stat(pp)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("setup %s 2^%d: %d constraints, %s, write %v, total %v; pk %.2f GiB",
			circuit, e, s.R1CS.GetNbConstraints(), ph, (total - made).Round(time.Millisecond), total.Round(time.Millisecond), float64(st.Size())/(1<<30))
		t.Log(line)
		fmt.Println(line)
	}
}

// TestLoadAtScale times loading cached proving keys (circuit:log2size
// items in PROOFLANE_SCALE_LOAD, from PROOFLANE_SCALE_KEYS) with gnark's
// decoder and with readProvingKey, each through readKeyFile (the checks
// and the checksum): ours first, then gnark's (the file as warm in the
// page cache for gnark's as for ours, or warmer).
func TestLoadAtScale(t *testing.T) {
	spec, dir := os.Getenv("PROOFLANE_SCALE_LOAD"), os.Getenv("PROOFLANE_SCALE_KEYS")
	if spec == "" || dir == "" {
		t.Skip("PROOFLANE_SCALE_LOAD or PROOFLANE_SCALE_KEYS not set")
	}
	for _, item := range strings.Split(spec, ",") {
		circuit, lg, _ := strings.Cut(item, ":")
		e, err := strconv.Atoi(lg)
		if err != nil || e < 1 || e > 28 {
			t.Fatalf("PROOFLANE_SCALE_LOAD item %q: want circuit:log2size", item)
		}
		_, pp, _ := Cache{Dir: dir}.Paths(circuit, 1<<e)
		for _, way := range []string{"prooflane", "gnark"} {
			pk := new(g16.ProvingKey)
			read := pk.UnsafeReadFrom
			if way == "prooflane" {
				read = func(r io.Reader) (int64, error) { return readProvingKey(r, pk) }
			}
			start := time.Now()
			if err := readKeyFile(t.Context(), pp, true, decoder{check: checkPKLengths, read: read}); err != nil {
				t.Fatal(err)
			}
			line := fmt.Sprintf("load %s 2^%d proving key with %s's decoder: %v", circuit, e, way, time.Since(start).Round(time.Millisecond))
			t.Log(line)
			fmt.Println(line)
		}
	}
}

// TestSynthesisAtScale times witness generation (gnark's R1CS solver, what
// the synthesize stage runs) at the sizes in PROOFLANE_SCALE_SOLVE
// ("chain:22,sha256:24"), for PROOFLANE_SCALE_PARTITIONS partitions (4
// without it) solved all at once, one at a time, and all at once again
// (so that neither order favours one way), one line each:
// the time a partition, the partitions a second, and the cores the
// process kept busy (CPU time over wall time). Skipped without it; it
// asserts nothing beyond every partition solving.
func TestSynthesisAtScale(t *testing.T) {
	spec := os.Getenv("PROOFLANE_SCALE_SOLVE")
	if spec == "" {
		t.Skip("PROOFLANE_SCALE_SOLVE not set")
	}
	partitions := 4
	if v, err := strconv.Atoi(os.Getenv("PROOFLANE_SCALE_PARTITIONS")); err == nil && v > 0 {
		partitions = v
	}
	for _, item := range strings.Split(spec, ",") {
		circuit, lg, ok := strings.Cut(item, ":")
		e, err := strconv.Atoi(lg)
		if !ok || err != nil || e < 1 || e > 28 {
			t.Fatalf("PROOFLANE_SCALE_SOLVE item %q: want circuit:log2size", item)
		}
		start := time.Now()
		sys, _, err := Compile(circuit, 1<<e)
		if err != nil {
			t.Fatal(err)
		}
		compiled := time.Since(start)
		s := &Set{Circuit: circuit, Size: 1 << e, R1CS: sys}
		start = time.Now()
		ws, err := s.Witnesses(partitions, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		assigned := time.Since(start)
		for _, atOnce := range []int{partitions, 1, partitions} {
			cpu0 := cpuTime(t)
			start := time.Now()
			sem := make(chan struct{}, atOnce)
			errs := make(chan error, partitions)
			for p := range ws {
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					_, err := sys.Solve(ws[p])
					errs <- err
				}()
			}
			for range ws {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			wall := time.Since(start)
			cores := float64(cpuTime(t)-cpu0) / float64(wall)
			line := fmt.Sprintf("solve %s 2^%d (%d constraints; compile %v, %d assignments %v): %d partitions, %d at once: %v, %v a partition, %.2f partitions/s, %.1f cores busy",
				circuit, e, sys.GetNbConstraints(), compiled.Round(time.Millisecond), partitions, assigned.Round(time.Millisecond),
				partitions, atOnce, wall.Round(time.Millisecond), (wall * time.Duration(atOnce) / time.Duration(partitions)).Round(time.Millisecond),
				float64(partitions)/wall.Seconds(), cores)
			t.Log(line)
			fmt.Println(line)
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
