//go:build cuda

// Command cudabench times the cuda package's kernels against gnark-crypto
// on the host's cores and prints a markdown table:
//
//	go build -tags cuda -o bin/cudabench ./cmd/cudabench
//	bin/cudabench -cpu=true
//
// -curve picks the curve whose kernels it times (bls12-381, the default,
// or bn254; -fpmul is BLS12-381's Fp alone). The kernels' options
// (cuda.Options) are its flags -msmc, -accum, -affinemax, -affinelevels,
// -sumthreads and -profile; it reads no environment. It imports no stage package: its references are
// gnark-crypto's and internal/ref's.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/internal/ref"
)

var (
	cpu       = flag.Bool("cpu", true, "also time gnark-crypto on the host")
	reps      = flag.Int("reps", 5, "timed repetitions (median reported)")
	g1Logs    = flag.String("g1", "20,22,24", "G1 MSM sizes (log2)")
	g2Logs    = flag.String("g2", "20,22", "G2 MSM sizes (log2)")
	nttLogs   = flag.String("ntt", "20,22,24", "NTT and H sizes (log2)")
	windows   = flag.String("c", "", "extra G1 MSM window sizes to try at each size")
	windows2  = flag.String("c2", "", "extra G2 MSM window sizes to try at each size")
	tables    = flag.String("t", "", "G1 MSM over a precomputed table: the table windows to try at each size")
	tables2   = flag.String("t2", "", "G2 MSM over a precomputed table: the table windows to try at each size")
	sums      = flag.String("sum", "", "G1 batch additions (SumG1) of 2^l random bases of a 2^l key, sizes (log2)")
	sumOnes   = flag.Float64("sumones", 0, "-sum: instead of 2^l random bases, each base of the key with this probability, in order (sha256's ones: about 0.3 of its wires)")
	dump      = flag.String("dump", "", "write each MSM's and NTT's inputs to this folder for another library's timing program (gN-L.points: the affine points in gnark-crypto's memory layout, Montgomery form; gN-L.scalars: 32-byte canonical little-endian scalars; ntt-L.in and ntt-L.out: the forward DIF NTT's input and output, fr.Element memory, Montgomery form) and print `result gN N X Y`, the plain MSM's affine result in canonical big-endian hex, and `omega N W`, the NTT domain's generator")
	nttAll    = flag.Bool("nttall", false, "also time the forward DIT and the inverse DIF and DIT NTTs (no gnark-crypto column)")
	distinct  = flag.Int("distinct", ref.Distinct, "distinct MSM base points, repeated to the size (0: all distinct, slow to make at 2^24)")
	out       = flag.String("o", "", "also write the table to this file")
	frMul     = flag.String("frmul", "", "Fr multiplication throughput: 256 squarings of each of 2^l elements, sizes (log2)")
	fpMul     = flag.String("fpmul", "", "Fp multiplication throughput: 256 squarings of each of 2^l elements with the integer mont_mul, on the FP64 pipe (fp64.cuh) and with both kinds of warps at once (-fpwarps), sizes (log2)")
	fpWarps   = flag.String("fpwarps", "0,8,2,4,9", "-fpmul: the warps of every 8 that multiply on the FP64 pipe, one row each (0: all integer, 8: all FP64; 9: every thread both at once, on two elements)")
	zeros     = flag.Float64("zeros", 0, "the fraction of the MSMs' scalars set to 0 (sha256's wires: 0.68)")
	units     = flag.Float64("units", 0, "the fraction of the MSMs' scalars set to 1 or -1, half each (sha256's wires: 0.31)")
	curveName = flag.String("curve", "bls12-381", "the curve whose kernels to time: bls12-381 or bn254 (-fpmul is BLS12-381's alone)")
	seed      = flag.Uint64("seed", 0, "the inputs' random seed (0: a fresh one); builds run with the same seed get the same inputs, and -dump's result lines can be compared")

	// the kernels' options (cuda.Options)
	msmC         = flag.Int("msmc", 0, "force every plain MSM's window, 4 to 24 (0: by size, cuda.Window)")
	accum        = flag.String("accum", "default", "how the MSMs sum their buckets: default (G2 batch-affine, G1 XYZZ), affine or xyzz")
	affineMax    = flag.Uint64("affinemax", 0, "the most scratch (bytes) of a batch-affine accumulation (0: 4 GiB)")
	affineLevels = flag.Int("affinelevels", 0, "stop the batch-affine levels after this many and finish with XYZZ additions (0: all)")
	sumThreads   = flag.Int("sumthreads", 0, "the batch additions' thread count (0: one wave of the device)")
	profile      = flag.Bool("profile", false, "print each MSM's phases (CUDA event times) on stderr")
)

// options are the kernels' options the flags say.
func options() (cuda.Options, error) {
	o := cuda.Options{MSMWindow: *msmC, AffineMax: *affineMax, AffineLevels: *affineLevels, SumThreads: *sumThreads, Profile: *profile}
	switch *accum {
	case "default":
	case "affine":
		o.Accum = cuda.AccumAffine
	case "xyzz":
		o.Accum = cuda.AccumXYZZ
	default:
		return o, fmt.Errorf("-accum %q: want default, affine or xyzz", *accum)
	}
	return o, o.Validate()
}

// nttOrders are the NTTs -nttall times besides the forward DIF one.
var nttOrders = []struct {
	op           string
	inverse, dif bool
}{
	{"ntt fwd DIT", false, false},
	{"ntt inv DIF", true, true},
	{"ntt inv DIT", true, false},
}

type row struct {
	op, size string
	gpu, cpu time.Duration
	note     string
}

var rows []row

func add(op string, logn int, gpu, cpuT time.Duration, note string) {
	r := row{op: op, size: fmt.Sprintf("2^%d", logn), gpu: gpu, cpu: cpuT, note: note}
	rows = append(rows, r)
	fmt.Fprintf(os.Stderr, "%-22s %-5s gpu %10s cpu %10s %s\n", op, r.size, fmtD(gpu), fmtD(cpuT), note)
}

func fmtD(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	ms := float64(d) / 1e6
	if ms < 10 {
		return fmt.Sprintf("%.3f ms", ms)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

func median(n int, f func() error) (time.Duration, error) {
	var ts []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ts = append(ts, time.Since(t0))
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// benchWindows times an MSM of 2^l terms (gpu, median of reps after a
// warm-up): first as MSMG1 and MSMG2 run it (gpu(0), plan being
// Stream.PlanMSM's), then at each extra window over every scalar; the
// first row also times gnark-crypto on the host (host, which says
// whether its result equals the GPU's last one) when -cpu is set. The
// note gives what the warm-up took from the device's pool beside
// cuda.MSMScratch's bound of the XYZZ accumulation (a G2 MSM under the
// batch-affine cap takes that scratch too), for the first row that of
// the device's window for 2^l points (Options.Window), which the
// device memory model counts.
func benchWindows(d *cuda.Device, op string, l int, plan cuda.MSMPlan, extra []int, reps, xyzz int, gpu func(c int) error, host func() (time.Duration, bool)) {
	for _, c := range append([]int{0}, extra...) {
		before, _, err := d.PoolUsage(true)
		must(err)
		must(gpu(c)) // warm-up
		_, high, err := d.PoolUsage(false)
		must(err)
		t, err := median(reps, func() error { return gpu(c) })
		must(err)
		var tc time.Duration
		window, bound := c, c
		if c == 0 {
			window, bound = plan.Window, d.Options().Window(1<<l)
		}
		note := fmt.Sprintf("c=%d, scratch %.2f GiB (MSMScratch %.2f)", window,
			float64(high-before)/(1<<30), float64(cuda.MSMScratch(1<<l, bound, false, xyzz))/(1<<30))
		if c == 0 && plan.Sparse {
			note += fmt.Sprintf(", sparse: %d units summed, %d others", plan.Units, plan.Nonzero-plan.Units)
		}
		if *cpu && c == 0 {
			var same bool
			if tc, same = host(); !same {
				note += " MISMATCH"
			}
		}
		add(op, l, t, tc, note)
	}
}

// benchTable times the load of a precomputed table of window c (upload
// and precomputation) and the MSM over it (median of reps after a
// warm-up); the MSM's result must equal the plain MSM's (same), checked
// against gnark-crypto when -cpu is set. A table that does not fit is a
// row saying so, not a failure.
func benchTable(op string, l, c int, load func() (run func() error, same func() bool, evict func() error, err error)) {
	t0 := time.Now()
	run, same, evict, err := load()
	build := time.Since(t0)
	if err != nil {
		add(op, l, 0, 0, fmt.Sprintf("c=%d: %v", c, err))
		return
	}
	must(run())
	t, err := median(*reps, run)
	must(err)
	note := fmt.Sprintf("c=%d, %d rows, load+precompute %s", c, cuda.TableRows(c), fmtD(build))
	if !same() {
		note += " MISMATCH"
	}
	add(op, l, t, 0, note)
	must(evict())
}

// dumpInputs prints an MSM's result line on stderr and, when -dump is
// set, writes its points (raw, as in memory) and canonical scalars into
// -dump's folder and prints the result line on stdout too.
func dumpInputs[F any, PF canonical[F]](group string, l int, points []byte, sc []F, x, y []byte) {
	line := resultLine(group, len(sc), x, y)
	// on stderr beside the rows: builds run with the same -seed compare them
	fmt.Fprintln(os.Stderr, line)
	if *dump == "" {
		return
	}
	must(writeMSMDump[F, PF](*dump, group, l, points, sc))
	fmt.Println(line)
}

// writeMSMDump writes gN-L.points (points, the affine points' memory)
// and gN-L.scalars (sc canonical) into dir.
func writeMSMDump[F any, PF canonical[F]](dir, group string, l int, points []byte, sc []F) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", group, l))
	if err := writeWhole(base+".points", points); err != nil {
		return err
	}
	return writeWhole(base+".scalars", canonicalBytes[F, PF](sc))
}

// writeNTTDump writes ntt-L.in and ntt-L.out (fr.Element memory) into dir.
func writeNTTDump[F any](dir string, l int, in, out []F) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("ntt-%d", l))
	if err := writeWhole(base+".in", rawBytes(in)); err != nil {
		return err
	}
	return writeWhole(base+".out", rawBytes(out))
}

// resultLine is `result gN N X Y`: an MSM of N terms and its affine
// result, canonical big-endian hex (G2's coordinates c0 then c1).
func resultLine(group string, n int, x, y []byte) string {
	return fmt.Sprintf("result %s %d %x %x", group, n, x, y)
}

// rawBytes is s's memory, as another program reads it back.
func rawBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// canonical is what the dump needs of gnark-crypto's fr.Element: its
// canonical value's limbs.
type canonical[F any] interface {
	*F
	Bits() [4]uint64
}

// canonicalBytes is sc as plain integers, 32 little-endian bytes each.
func canonicalBytes[F any, PF canonical[F]](sc []F) []byte {
	raw := make([]byte, 32*len(sc))
	for i := range sc {
		b := PF(&sc[i]).Bits() // canonical, little-endian limbs
		for j, w := range b {
			binary.LittleEndian.PutUint64(raw[32*i+8*j:], w)
		}
	}
	return raw
}

// omegaLine is `omega N W`: a domain's size n and generator w
// (canonical, big-endian: fr.Element.Bytes), which ntt-L.out was
// computed with.
func omegaLine(n uint64, w [32]byte) string {
	return fmt.Sprintf("omega %d %x", n, w[:])
}

// writeWhole writes b to path whole or not at all: a temporary file beside
// it, synced, then renamed over path.
func writeWhole(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	err = durable.Write(f, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %q: %w", path, err)
	}
	return nil
}

func logs(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var v int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &v); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "cudabench:", err)
		os.Exit(1)
	}
}

func main() {
	flag.Parse()
	ctx := context.Background()
	crv, err := cuda.ParseCurve(*curveName)
	if err != nil {
		usage(fmt.Errorf("-curve: %w", err))
	}
	if crv != cuda.BLS12381 && *fpMul != "" {
		usage(fmt.Errorf("-fpmul times BLS12-381's Fp alone, not %s's", crv))
	}
	sd := *seed
	if sd == 0 {
		sd = ref.Seed()
	}
	r := rand.New(rand.NewPCG(sd, 3))
	opts, err := options()
	if err != nil {
		usage(err)
	}
	infos, err := cuda.Devices()
	must(err)
	d, err := cuda.Open(0, opts)
	must(err)
	s, err := d.NewStream()
	must(err)
	kernels := cuda.LibHash()
	if kernels == "" {
		kernels = "unknown (built without the -X of scripts/gpu-build.sh)"
	}
	// the kernels' hash names the build a table came from, whatever
	// folder its binary was copied into
	header := fmt.Sprintf("device: %s (%d SMs, %.0f GiB); host: %d cores (GOMAXPROCS %d); kernels: libprooflane_cuda.a %s; curve: %s", infos[0].Name, infos[0].Multiprocessor, float64(infos[0].MemTotal)/(1<<30), runtime.NumCPU(), runtime.GOMAXPROCS(0), kernels, crv)
	fmt.Fprintln(os.Stderr, header)
	if *dump != "" {
		// the harness checks it reads the dump of the curve it was built for
		fmt.Println(curveLine(crv))
	}

	benchUpload(s, r)
	switch crv {
	case cuda.BN254:
		run(ctx, bn254Bench, d, s, r)
	default:
		run(ctx, bls12381Bench, d, s, r)
		for _, l := range logs(*fpMul) {
			benchFpMul(s, r, l)
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\n\n| op | size | GPU | gnark-crypto CPU | speed-up | note |\n|---|---|---|---|---|---|\n", header)
	for _, r := range rows {
		sp := "-"
		if r.cpu > 0 && r.gpu > 0 {
			sp = fmt.Sprintf("%.0fx", float64(r.cpu)/float64(r.gpu))
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s |\n", r.op, r.size, fmtD(r.gpu), fmtD(r.cpu), sp, r.note)
	}
	fmt.Print(sb.String())
	if *out != "" {
		must(os.WriteFile(*out, []byte(sb.String()), 0o644))
	}
	must(s.Close())
	must(d.Close())
}

// curveLine is `curve NAME`, the curve of a dump (cuda.Curve's name).
func curveLine(c cuda.Curve) string { return "curve " + c.String() }

// usage reports a mistake in the flags and exits 2.
func usage(err error) {
	fmt.Fprintln(os.Stderr, "cudabench:", err)
	os.Exit(2)
}

// benchUpload times uploads of 1 GiB: from pinned memory, and through
// staging from Go memory.
func benchUpload(s *cuda.Stream, r *rand.Rand) {
	const n = 1 << 25
	p, err := cuda.NewPinned(n)
	must(err)
	v, err := s.Alloc(n)
	must(err)
	t, err := median(*reps, func() error {
		if err := s.UploadPinned(v, p, false); err != nil {
			return err
		}
		return s.Sync()
	})
	must(err)
	gb := float64(n*32) / 1e9
	add("upload pinned 1 GiB", 25, t, 0, fmt.Sprintf("%.1f GB/s", gb/t.Seconds()))
	host := make([]fr.Element, n)
	copy(host, ref.Fr(r, 1<<12))
	t, err = median(*reps, func() error {
		if err := s.Upload(v, host, false); err != nil {
			return err
		}
		return s.Sync()
	})
	must(err)
	add("upload staged 1 GiB", 25, t, 0, fmt.Sprintf("%.1f GB/s", gb/t.Seconds()))
	must(s.Free(v))
	must(p.Free())
}

// benchFpMul times 256 squarings of each of 2^l BLS12-381 Fp elements in
// each of -fpwarps' modes, every mode's result checked against the first.
func benchFpMul(s *cuda.Stream, r *rand.Rand, l int) {
	const iters = 256
	n := 1 << l
	in := ref.Fp(r, n)
	x := make([]fp.Element, n)
	var want [32]byte
	for k, w := range logs(*fpWarps) {
		var ms []float64
		for rep := 0; rep < *reps; rep++ {
			copy(x, in)
			t, err := s.FpSquarings(x, iters, w)
			must(err)
			ms = append(ms, float64(t))
		}
		slices.Sort(ms)
		t := time.Duration(ms[len(ms)/2] * float64(time.Millisecond))
		sum := sha256.Sum256(rawBytes(x))
		if k == 0 {
			want = sum
		}
		match := "MATCH"
		if sum != want {
			match = "MISMATCH"
		}
		fmt.Fprintf(os.Stderr, "result fpmul %d %d %x %s\n", n, w, sum, match)
		what := fmt.Sprintf("fp mul, %d of 8 warps FP64", w)
		if w == cuda.FpDual {
			what = "fp mul, both in every thread"
		}
		add(what, l, t, 0, fmt.Sprintf("%.2f G mul/s, %s", float64(n)*iters/t.Seconds()/1e9, match))
	}
}
