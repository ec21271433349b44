//go:build cuda

// Command cudabench times the cuda package's kernels against gnark-crypto
// on the host's cores and prints a markdown table:
//
//	go build -tags cuda -o bin/cudabench ./cmd/cudabench
//	bin/cudabench -cpu=true
//
// The kernels' options (cuda.Options) are its flags -msmc, -accum,
// -affinemax, -affinelevels, -sumthreads and -profile; it reads no
// environment. It imports no stage package: its references are
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

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/internal/ref"
)

var (
	cpu      = flag.Bool("cpu", true, "also time gnark-crypto on the host")
	reps     = flag.Int("reps", 5, "timed repetitions (median reported)")
	g1Logs   = flag.String("g1", "20,22,24", "G1 MSM sizes (log2)")
	g2Logs   = flag.String("g2", "20,22", "G2 MSM sizes (log2)")
	nttLogs  = flag.String("ntt", "20,22,24", "NTT and H sizes (log2)")
	windows  = flag.String("c", "", "extra G1 MSM window sizes to try at each size")
	windows2 = flag.String("c2", "", "extra G2 MSM window sizes to try at each size")
	tables   = flag.String("t", "", "G1 MSM over a precomputed table: the table windows to try at each size")
	tables2  = flag.String("t2", "", "G2 MSM over a precomputed table: the table windows to try at each size")
	sums     = flag.String("sum", "", "G1 batch additions (SumG1) of 2^l random bases of a 2^l key, sizes (log2)")
	sumOnes  = flag.Float64("sumones", 0, "-sum: instead of 2^l random bases, each base of the key with this probability, in order (sha256's ones: about 0.3 of its wires)")
	dump     = flag.String("dump", "", "write each MSM's and NTT's inputs to this folder for another library's timing program (gN-L.points: the affine points in gnark-crypto's memory layout, Montgomery form; gN-L.scalars: 32-byte canonical little-endian scalars; ntt-L.in and ntt-L.out: the forward DIF NTT's input and output, fr.Element memory, Montgomery form) and print `result gN N X Y`, the plain MSM's affine result in canonical big-endian hex, and `omega N W`, the NTT domain's generator")
	nttAll   = flag.Bool("nttall", false, "also time the forward DIT and the inverse DIF and DIT NTTs (no gnark-crypto column)")
	distinct = flag.Int("distinct", ref.Distinct, "distinct MSM base points, repeated to the size (0: all distinct, slow to make at 2^24)")
	out      = flag.String("o", "", "also write the table to this file")
	frMul    = flag.String("frmul", "", "Fr multiplication throughput: 256 squarings of each of 2^l elements, sizes (log2)")
	fpMul    = flag.String("fpmul", "", "Fp multiplication throughput: 256 squarings of each of 2^l elements with the integer mont_mul, on the FP64 pipe (fp64.cuh) and with both kinds of warps at once (-fpwarps), sizes (log2)")
	fpWarps  = flag.String("fpwarps", "0,8,2,4,9", "-fpmul: the warps of every 8 that multiply on the FP64 pipe, one row each (0: all integer, 8: all FP64; 9: every thread both at once, on two elements)")
	zeros    = flag.Float64("zeros", 0, "the fraction of the MSMs' scalars set to 0 (sha256's wires: 0.68)")
	units    = flag.Float64("units", 0, "the fraction of the MSMs' scalars set to 1 or -1, half each (sha256's wires: 0.31)")
	seed     = flag.Uint64("seed", 0, "the inputs' random seed (0: a fresh one); builds run with the same seed get the same inputs, and -dump's result lines can be compared")

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
func dumpInputs(group string, l int, points []byte, sc []fr.Element, x, y []byte) {
	line := resultLine(group, len(sc), x, y)
	// on stderr beside the rows: builds run with the same -seed compare them
	fmt.Fprintln(os.Stderr, line)
	if *dump == "" {
		return
	}
	must(writeMSMDump(*dump, group, l, points, sc))
	fmt.Println(line)
}

// dumpNTT writes x (ntt-L.in) and the device's forward DIF NTT of it
// (ntt-L.out) into -dump's folder and prints the domain's generator, when
// -dump is set. x is left as it was.
func dumpNTT(s *cuda.Stream, dom *fft.Domain, l int, x []fr.Element) {
	if *dump == "" {
		return
	}
	v, err := s.Alloc(len(x))
	must(err)
	must(s.Upload(v, x, false))
	must(s.FFT(v, dom, true, false))
	y := make([]fr.Element, len(x))
	must(s.Download(y, v))
	must(s.Free(v))
	must(s.Sync())
	must(writeNTTDump(*dump, l, x, y))
	fmt.Println(omegaLine(dom))
}

// writeMSMDump writes gN-L.points (points, the affine points' memory)
// and gN-L.scalars (sc canonical) into dir.
func writeMSMDump(dir, group string, l int, points []byte, sc []fr.Element) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", group, l))
	if err := writeWhole(base+".points", points); err != nil {
		return err
	}
	return writeWhole(base+".scalars", canonicalBytes(sc))
}

// writeNTTDump writes ntt-L.in and ntt-L.out (fr.Element memory) into dir.
func writeNTTDump(dir string, l int, in, out []fr.Element) error {
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

// g1XY is p's affine coordinates, canonical big-endian ((0, 0) at infinity).
func g1XY(p *curve.G1Jac) (x, y []byte) {
	var a curve.G1Affine
	a.FromJacobian(p)
	bx, by := a.X.Bytes(), a.Y.Bytes()
	return bx[:], by[:]
}

// g2XY is p's affine coordinates, canonical big-endian, c0 then c1 each.
func g2XY(p *curve.G2Jac) (x, y []byte) {
	var a curve.G2Affine
	a.FromJacobian(p)
	x0, x1, y0, y1 := a.X.A0.Bytes(), a.X.A1.Bytes(), a.Y.A0.Bytes(), a.Y.A1.Bytes()
	return append(x0[:], x1[:]...), append(y0[:], y1[:]...)
}

// rawBytes is s's memory, as another program reads it back.
func rawBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// canonicalBytes is sc as plain integers, 32 little-endian bytes each.
func canonicalBytes(sc []fr.Element) []byte {
	raw := make([]byte, 32*len(sc))
	for i := range sc {
		b := sc[i].Bits() // canonical, little-endian limbs
		for j, w := range b {
			binary.LittleEndian.PutUint64(raw[32*i+8*j:], w)
		}
	}
	return raw
}

// omegaLine is `omega N W`: the domain's size and generator (canonical,
// big-endian hex), which ntt-L.out was computed with.
func omegaLine(dom *fft.Domain) string {
	w := dom.Generator.Bytes()
	return fmt.Sprintf("omega %d %x", dom.Cardinality, w[:])
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
	sd := *seed
	if sd == 0 {
		sd = ref.Seed()
	}
	r := rand.New(rand.NewPCG(sd, 3))
	opts, err := options()
	must(err)
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
	header := fmt.Sprintf("device: %s (%d SMs, %.0f GiB); host: %d cores (GOMAXPROCS %d); kernels: libprooflane_cuda.a %s", infos[0].Name, infos[0].Multiprocessor, float64(infos[0].MemTotal)/(1<<30), runtime.NumCPU(), runtime.GOMAXPROCS(0), kernels)
	fmt.Fprintln(os.Stderr, header)

	// upload bandwidth: 1 GiB from pinned memory, and through staging from Go memory
	{
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

	for _, l := range logs(*nttLogs) {
		n := 1 << l
		dom := fft.NewDomain(uint64(n))
		x := ref.Fr(r, n)
		dumpNTT(s, dom, l, x)
		v, err := s.Alloc(n)
		must(err)
		must(s.Upload(v, x, false))
		must(s.FFT(v, dom, true, false)) // warm-up: tables
		must(s.Sync())
		tg, err := median(*reps, func() error {
			if err := s.FFT(v, dom, true, false); err != nil {
				return err
			}
			return s.Sync()
		})
		must(err)
		var tc time.Duration
		if *cpu {
			tc, _ = median(3, func() error { dom.FFT(x, fft.DIF); return nil })
		}
		add("ntt fwd DIF", l, tg, tc, "")
		// the NTT of x once more, for the A/B runs' comparison of results
		must(s.Upload(v, x, false))
		must(s.FFT(v, dom, true, false))
		y := make([]fr.Element, n)
		must(s.Download(y, v))
		must(s.Sync())
		fmt.Fprintf(os.Stderr, "result ntt %d %x\n", n, sha256.Sum256(rawBytes(y)))
		if *nttAll {
			for _, o := range nttOrders {
				ntt := s.FFT
				if o.inverse {
					ntt = s.FFTInverse
				}
				run := func() error {
					if err := ntt(v, dom, o.dif, false); err != nil {
						return err
					}
					return s.Sync()
				}
				must(run()) // warm-up: the inverse's tables
				t, err := median(*reps, run)
				must(err)
				add(o.op, l, t, 0, "")
			}
		}
		vb, err := s.Alloc(n)
		must(err)
		vc, err := s.Alloc(n)
		must(err)
		must(s.Upload(vb, x, false))
		must(s.Upload(vc, x, false))
		th, err := median(*reps, func() error {
			if err := s.ComputeH(ctx, v, vb, vc, dom); err != nil {
				return err
			}
			return s.Sync()
		})
		must(err)
		var tch time.Duration
		if *cpu {
			tch = cpuH(x, dom)
		}
		add("groth16 H (7 NTTs)", l, th, tch, "")
		s.Free(v)
		s.Free(vb)
		s.Free(vc)
		must(s.Sync())
	}

	for _, l := range logs(*frMul) {
		const iters = 256
		n := 1 << l
		v, err := s.Alloc(n)
		must(err)
		must(s.Upload(v, ref.Fr(r, n), false))
		t, err := median(*reps, func() error {
			if err := s.FrSquarings(v, iters); err != nil {
				return err
			}
			return s.Sync()
		})
		must(err)
		add("fr mul (256 a thread)", l, t, 0, fmt.Sprintf("%.1f G mul/s", float64(n)*iters/t.Seconds()/1e9))
		must(s.Free(v))
	}

	for _, l := range logs(*fpMul) {
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
			add(what, l, t, 0,
				fmt.Sprintf("%.2f G mul/s, %s", float64(n)*iters/t.Seconds()/1e9, match))
		}
	}

	for _, l := range logs(*g1Logs) {
		n := 1 << l
		pts := ref.G1N(r, n, *distinct)
		sc := msmScalars(r, n)
		b, err := d.LoadG1(fmt.Sprintf("bench-%d", l), pts)
		must(err)
		v, err := s.Alloc(n)
		must(err)
		must(s.Upload(v, sc, false))
		var got curve.G1Jac
		plan, err := s.PlanMSM(v, n, 0)
		must(err)
		benchWindows(d, "msm G1", l, plan, logs(*windows), *reps, cuda.G1XYZZBytes,
			func(c int) (err error) {
				if c == 0 {
					got, err = s.MSMG1(ctx, b, v, n)
				} else {
					got, err = s.MSMG1Window(ctx, b, v, n, c)
				}
				return err
			},
			func() (time.Duration, bool) {
				var want curve.G1Jac
				t0 := time.Now()
				want.MultiExp(pts, sc, ecc.MultiExpConfig{})
				return time.Since(t0), want.Equal(&got)
			})
		x, y := g1XY(&got)
		dumpInputs("g1", l, rawBytes(pts), sc, x, y)
		for _, c := range logs(*tables) {
			benchTable("msm G1 table", l, c, func() (func() error, func() bool, func() error, error) {
				t, err := d.LoadG1Table(fmt.Sprintf("bench-%d-t%d", l, c), pts, c)
				if err != nil {
					return nil, nil, nil, err
				}
				var r curve.G1Jac
				run := func() (err error) { r, err = s.MSMG1(ctx, t, v, n); return err }
				return run, func() bool { return r.Equal(&got) }, func() error { return d.Evict(fmt.Sprintf("bench-%d-t%d", l, c)) }, nil
			})
		}
		s.Free(v)
		must(s.Sync())
	}
	for _, l := range logs(*sums) {
		n := 1 << l
		pts := ref.G1N(r, n, *distinct)
		b, err := d.LoadG1(fmt.Sprintf("bench-sum-%d", l), pts)
		must(err)
		idx := make([]int32, 0, n)
		for i := 0; i < n; i++ {
			switch {
			case *sumOnes == 0:
				idx = append(idx, int32(r.IntN(n)))
			case r.Float64() < *sumOnes:
				idx = append(idx, int32(i))
			}
		}
		var got curve.G1Jac
		must(func() (err error) { got, err = s.SumG1(ctx, b, idx); return err }())
		t, err := median(*reps, func() (err error) { got, err = s.SumG1(ctx, b, idx); return err })
		must(err)
		var want curve.G1Jac
		for _, i := range idx {
			want.AddMixed(&pts[i])
		}
		note := fmt.Sprintf("%d points, %.2f ns a point", len(idx), float64(t.Nanoseconds())/float64(max(len(idx), 1)))
		if !want.Equal(&got) {
			note += " MISMATCH"
		}
		add("sum G1", l, t, 0, note)
		must(d.Evict(fmt.Sprintf("bench-sum-%d", l)))
	}
	for _, l := range logs(*g2Logs) {
		n := 1 << l
		pts := ref.G2N(r, n, *distinct)
		sc := msmScalars(r, n)
		b, err := d.LoadG2(fmt.Sprintf("bench-%d", l), pts)
		must(err)
		v, err := s.Alloc(n)
		must(err)
		must(s.Upload(v, sc, false))
		var got curve.G2Jac
		plan, err := s.PlanMSM(v, n, 0)
		must(err)
		benchWindows(d, "msm G2", l, plan, logs(*windows2), max(*reps/2, 1), cuda.G2XYZZBytes,
			func(c int) (err error) {
				if c == 0 {
					got, err = s.MSMG2(ctx, b, v, n)
				} else {
					got, err = s.MSMG2Window(ctx, b, v, n, c)
				}
				return err
			},
			func() (time.Duration, bool) {
				var want curve.G2Jac
				t0 := time.Now()
				want.MultiExp(pts, sc, ecc.MultiExpConfig{})
				return time.Since(t0), want.Equal(&got)
			})
		x, y := g2XY(&got)
		dumpInputs("g2", l, rawBytes(pts), sc, x, y)
		for _, c := range logs(*tables2) {
			benchTable("msm G2 table", l, c, func() (func() error, func() bool, func() error, error) {
				t, err := d.LoadG2Table(fmt.Sprintf("bench-%d-t%d", l, c), pts, c)
				if err != nil {
					return nil, nil, nil, err
				}
				var r curve.G2Jac
				run := func() (err error) { r, err = s.MSMG2(ctx, t, v, n); return err }
				return run, func() bool { return r.Equal(&got) }, func() error { return d.Evict(fmt.Sprintf("bench-%d-t%d", l, c)) }, nil
			})
		}
		s.Free(v)
		must(s.Sync())
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

// cpuH times the reference H step (gnark's computeH with gnark-crypto's
// NTTs, internal/ref.H) on a, b and c equal to x.
func cpuH(x []fr.Element, dom *fft.Domain) time.Duration {
	a, b, c := slices.Clone(x), slices.Clone(x), slices.Clone(x)
	t0 := time.Now()
	ref.H(a, b, c, dom)
	return time.Since(t0)
}

// msmScalars is n random scalars, each 0 with probability -zeros, else 1
// or -1 (half each) with probability -units.
func msmScalars(r *rand.Rand, n int) []fr.Element {
	sc := ref.Fr(r, n)
	if *zeros > 0 || *units > 0 {
		for i := range sc {
			switch f := r.Float64(); {
			case f < *zeros:
				sc[i].SetZero()
			case f < *zeros+*units/2:
				sc[i].SetOne()
			case f < *zeros+*units:
				sc[i].SetInt64(-1)
			}
		}
	}
	return sc
}
