package keys

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/device"
)

// scaleBases is the generator multiplication TestSetupAtScale uses: the
// host's, or the CUDA backend's in a cuda build (scale_cuda_test.go).
var scaleBases = func(t *testing.T) device.FixedBase { return nil }

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
			if err := readKeyFile(pp, true, decoder{check: checkPKLengths, read: read}); err != nil {
				t.Fatal(err)
			}
			line := fmt.Sprintf("load %s 2^%d proving key with %s's decoder: %v", circuit, e, way, time.Since(start).Round(time.Millisecond))
			t.Log(line)
			fmt.Println(line)
		}
	}
}
