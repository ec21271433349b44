//go:build cuda

package cuda

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/internal/ref"
)

var (
	devOnce sync.Once
	dev     *Device
	devErr  error
)

// device opens GPU 0 once for the test binary with the default options,
// or skips.
func device(t testing.TB) *Device {
	devOnce.Do(func() { dev, devErr = Open(0, Options{}) })
	if devErr != nil {
		if errors.Is(devErr, ErrNoDevice) {
			t.Skip("no CUDA device: ", devErr)
		}
		t.Fatal(devErr)
	}
	return dev
}

// deviceWith opens GPU 0 again with opts for one test, closed after it,
// or skips.
func deviceWith(t testing.TB, opts Options) *Device {
	device(t)
	d, err := Open(0, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func stream(t testing.TB) *Stream { return streamOn(t, device(t)) }

func streamOn(t testing.TB, d *Device) *Stream {
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rng(t testing.TB) *rand.Rand {
	seed := ref.Seed()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 2))
}

// maxLog is the largest size tested: 2^16 by default, PROOFLANE_CUDA_TEST_MAXLOG
// (up to 24) for the large ones.
func maxLog() int {
	if v, err := strconv.Atoi(os.Getenv("PROOFLANE_CUDA_TEST_MAXLOG")); err == nil && v > 0 {
		return v
	}
	if testing.Short() {
		return 12
	}
	return 16
}

func sizes(from int) []int {
	var out []int
	for l := from; l <= maxLog(); l += 2 {
		out = append(out, l)
	}
	return out
}

func upload(t testing.TB, s *Stream, x []fr.Element) *Vector {
	v, err := s.Alloc(len(x))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Free(v) })
	if err := s.Upload(v, x, false); err != nil {
		t.Fatal(err)
	}
	return v
}

func download(t testing.TB, s *Stream, v *Vector) []fr.Element {
	out := make([]fr.Element, v.Len())
	if err := s.Download(out, v); err != nil {
		t.Fatal(err)
	}
	return out
}

func equal(t testing.TB, what string, got, want []fr.Element) {
	t.Helper()
	for i := range want {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("%s: differs at %d of %d", what, i, len(want))
		}
	}
}

func TestSelfTest(t *testing.T) {
	if err := device(t).SelfTest(ref.Seed()); err != nil {
		t.Fatal(err)
	}
	infos, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		t.Logf("device %d: %s, %d SMs, %.1f GiB (%.1f free)", in.Index, in.Name, in.Multiprocessor, float64(in.MemTotal)/(1<<30), float64(in.MemFree)/(1<<30))
	}
}

// TestFpSquarings runs fp64.cuh's FP64-pipe multiplication on the device
// in every mode cudabench -fpmul times (integer warps only, FP64 only,
// mixed warps, both in every thread) and checks every element against
// gnark-crypto's squarings.
func TestFpSquarings(t *testing.T) {
	s := stream(t)
	r := rng(t)
	const n, iters = 1 << 12, 40
	in := ref.Fp(r, n)
	want := make([]fp.Element, n)
	for i := range in {
		want[i] = in[i]
		for k := 0; k < iters; k++ {
			want[i].Square(&want[i])
		}
	}
	for _, mode := range []int{0, 8, 3, FpDual} {
		x := slices.Clone(in)
		if _, err := s.FpSquarings(x, iters, mode); err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if !x[i].Equal(&want[i]) {
				t.Fatalf("mode %d: element %d: %x squared %d times: %x, want %x", mode, i, in[i], iters, x[i], want[i])
			}
		}
	}
}

func TestUploadCanonical(t *testing.T) {
	s := stream(t)
	x := ref.Fr(rng(t), 1000)
	canon := make([]fr.Element, len(x))
	for i := range x {
		canon[i] = fr.Element(x[i].Bits())
	}
	v, err := s.Alloc(1500)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free(v)
	if err := s.Upload(v, canon, true); err != nil {
		t.Fatal(err)
	}
	got := download(t, s, v)
	equal(t, "canonical upload", got[:1000], x)
	for i := 1000; i < 1500; i++ {
		if !got[i].IsZero() {
			t.Fatalf("tail not zeroed at %d", i)
		}
	}
}

// TestStagingBuffersAreReusedByLaterStreams opens streams one after the
// other, as a pipeline's stages do, and checks that their staged uploads
// arrive whole and that they share the pinned buffers instead of pinning
// new ones (which would synchronize the device each time).
func TestStagingBuffersAreReusedByLaterStreams(t *testing.T) {
	r := rng(t)
	// Three staging buffers' worth (PL_STAGE_BYTES, 8 MB each) and a part,
	// so both buffers of a pair are used and reused.
	x := ref.Fr(r, 3*(8<<20)/frBytes+12345)
	roundTrip := func(s *Stream) {
		t.Helper()
		v, err := s.Alloc(len(x))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Free(v)
		if err := s.Upload(v, x, false); err != nil {
			t.Fatal(err)
		}
		equal(t, "staged upload", download(t, s, v), x)
	}
	// stream(t) also closes each stream at the end, after a failure: a
	// second Close is a no-op.
	s := stream(t)
	roundTrip(s)
	s.Close()
	before, idle := StagingBuffers()
	if idle < 2 || before < 2 {
		t.Fatalf("after one stream closed: %d buffers pinned, %d idle; want at least 2 of each", before, idle)
	}
	for i := 0; i < 5; i++ {
		s := stream(t)
		roundTrip(s)
		s.Close()
	}
	if after, idle2 := StagingBuffers(); after != before || idle2 != idle {
		t.Fatalf("5 streams one after the other: %d buffers pinned (%d idle), want the %d (%d idle) of the first", after, idle2, before, idle)
	}
	a, b := stream(t), stream(t)
	roundTrip(a)
	roundTrip(b)
	if after, _ := StagingBuffers(); after > max(before, 4) {
		t.Fatalf("two streams at once: %d buffers pinned, want at most %d", after, max(before, 4))
	}
	a.Close()
	b.Close()
}

func TestNTT(t *testing.T) {
	s := stream(t)
	r := rng(t)
	for _, logn := range append([]int{1, 3}, sizes(10)...) {
		n := 1 << logn
		d := fft.NewDomain(uint64(n))
		for _, inverse := range []bool{false, true} {
			for _, dif := range []bool{false, true} {
				for _, coset := range []bool{false, true} {
					x := ref.Fr(r, n)
					want := ref.NTT(x, d, inverse, dif, coset)
					v := upload(t, s, x)
					var err error
					if inverse {
						err = s.FFTInverse(v, d, dif, coset)
					} else {
						err = s.FFT(v, d, dif, coset)
					}
					if err != nil {
						t.Fatal(err)
					}
					equal(t, "ntt", download(t, s, v), want)
					s.Free(v)
				}
			}
		}
		// round trip natural -> natural
		x := ref.Fr(r, n)
		v := upload(t, s, x)
		if err := s.FFT(v, d, true, false); err != nil {
			t.Fatal(err)
		}
		if err := s.FFTInverse(v, d, false, false); err != nil {
			t.Fatal(err)
		}
		equal(t, "round trip", download(t, s, v), x)
		t.Logf("ntt 2^%d ok", logn)
	}
}

// The fused H kernel (pl_compute_h) is tested against the reference H step
// in stages/groth16 (TestCUDAFusedHMatchesTheGenericH), which owns it.

// msmInputs: random points and scalars with the special cases.
func msmInputs(r *rand.Rand, n int, g2 bool) ([]curve.G1Affine, []curve.G2Affine, []fr.Element) {
	s := ref.Fr(r, n)
	var p1 []curve.G1Affine
	var p2 []curve.G2Affine
	if g2 {
		p2 = ref.G2(r, n)
	} else {
		p1 = ref.G1(r, n)
	}
	if n >= 16 {
		s[0].SetZero()
		s[1].SetOne()
		s[2].SetInt64(-1) // r - 1
		s[3].SetInt64(-1)
		s[5] = s[6]
		for i := 8; i < 16; i++ {
			s[i].SetUint64(uint64(i % 3))
		}
		if g2 {
			p2[3] = p2[2]
			p2[4] = curve.G2Affine{}
			p2[6] = p2[5]
		} else {
			p1[3] = p1[2]
			p1[4] = curve.G1Affine{}
			p1[6] = p1[5]
			p1[7].Neg(&p1[6])
		}
	}
	return p1, p2, s
}

func TestMSMG1(t *testing.T) {
	s := stream(t)
	r := rng(t)
	d := device(t)
	for _, logn := range append([]int{0, 4}, sizes(10)...) {
		n := 1 << logn
		pts, _, sc := msmInputs(r, n, false)
		var want curve.G1Jac
		if _, err := want.MultiExp(pts, sc, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		b, err := d.LoadG1("test-g1-"+strconv.Itoa(logn), pts)
		if err != nil {
			t.Fatal(err)
		}
		v := upload(t, s, sc)
		windows := []int{Window(n)}
		if logn == 10 {
			windows = append(windows, 5, 13, 16)
		}
		if logn >= 16 {
			// the window sizes cudabench -c sweeps, so that a faster one
			// can become the default with its result already checked
			windows = append(windows, 14, 16, 18, 20)
		}
		for _, c := range windows {
			got, err := s.MSMG1Window(context.Background(), b, v, n, c)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(&want) {
				t.Fatalf("msm g1 2^%d c=%d differs from gnark", logn, c)
			}
		}
		t.Logf("msm g1 2^%d ok", logn)
	}
	msmG1EqualScalars(t, s, d, r, "test-g1-same")
}

// msmG1EqualScalars checks a G1 MSM whose scalars are all equal, so that
// one bucket a window holds every point, against gnark.
func msmG1EqualScalars(t *testing.T, s *Stream, d *Device, r *rand.Rand, id string) {
	n := 1 << 12
	pts, _, sc := msmInputs(r, n, false)
	for i := range sc {
		sc[i] = sc[7]
	}
	var want curve.G1Jac
	want.MultiExp(pts, sc, ecc.MultiExpConfig{})
	b, err := d.LoadG1(id, pts)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.MSMG1(context.Background(), b, upload(t, s, sc), n); err != nil || !got.Equal(&want) {
		t.Fatalf("msm g1 with equal scalars (%s) differs from gnark (%v)", id, err)
	}
}

// G1's batch-affine accumulation (Options.Accum AccumAffine; G1 takes
// the XYZZ segments by default), whose second pass G1 runs as a kernel
// of its own (k_ba_pass2_staged): plain and over a table against gnark,
// with msmInputs' infinity and repeated points, and equal scalars, whose
// one long bucket a window leaves points to the XYZZ segments after the
// levels.
func TestMSMG1Affine(t *testing.T) {
	d := deviceWith(t, Options{Accum: AccumAffine, AffineMax: 1 << 40})
	s := streamOn(t, d)
	r := rng(t)
	ctx := context.Background()
	for _, logn := range append([]int{0, 4}, sizes(10)...) {
		n := 1 << logn
		pts, _, sc := msmInputs(r, n, false)
		var want curve.G1Jac
		want.MultiExp(pts, sc, ecc.MultiExpConfig{})
		b, err := d.LoadG1("test-g1a-"+strconv.Itoa(logn), pts)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := d.LoadG1Table("test-g1a-t-"+strconv.Itoa(logn), pts, TableWindow(n))
		if err != nil {
			t.Fatal(err)
		}
		v := upload(t, s, sc)
		for _, bb := range []*G1Bases{b, tb} {
			if got, err := s.MSMG1(ctx, bb, v, n); err != nil || !got.Equal(&want) {
				t.Fatalf("msm g1 2^%d (table %d) by the batch-affine levels differs from gnark (%v)", logn, bb.window, err)
			}
		}
		t.Logf("msm g1 2^%d by the batch-affine levels ok", logn)
	}
	msmG1EqualScalars(t, s, d, r, "test-g1a-same")
}

func TestMSMG2(t *testing.T) {
	s := stream(t)
	r := rng(t)
	d := device(t)
	for _, logn := range append([]int{4}, sizes(10)...) {
		if logn > 22 {
			break
		}
		n := 1 << logn
		_, pts, sc := msmInputs(r, n, true)
		var want curve.G2Jac
		if _, err := want.MultiExp(pts, sc, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		b, err := d.LoadG2("test-g2-"+strconv.Itoa(logn), pts)
		if err != nil {
			t.Fatal(err)
		}
		v := upload(t, s, sc)
		windows := []int{Window(n)}
		if logn >= 16 {
			windows = append(windows, 14, 16, 20)
		}
		for _, c := range windows {
			got, err := s.MSMG2Window(context.Background(), b, v, n, c)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(&want) {
				t.Fatalf("msm g2 2^%d c=%d differs from gnark", logn, c)
			}
		}
		t.Logf("msm g2 2^%d ok", logn)
	}
}

// sha256Like sets scalars of x to zero with probability zeros, and of the
// rest to 1 or -1 with probability units (half each), as sha256's wires
// are (68% zeros, 30% ones, 1% minus ones).
func sha256Like(r *rand.Rand, x []fr.Element, zeros, units float64) {
	for i := range x {
		switch f := r.Float64(); {
		case f < zeros:
			x[i].SetZero()
		case f < zeros+units/2:
			x[i].SetOne()
		case f < zeros+units:
			x[i].SetInt64(-1)
		}
	}
}

// countUnits counts x's nonzero elements and, of those, the 1s and -1s.
func countUnits(x []fr.Element) (nonzero, units int) {
	for i := range x {
		var neg fr.Element
		neg.Neg(&x[i])
		if !x[i].IsZero() {
			nonzero++
		}
		if x[i].IsOne() || neg.IsOne() {
			units++
		}
	}
	return nonzero, units
}

// Count against a count on the host: zeros and units at several
// densities, prefixes of the vector, and a count past its end refused.
func TestCount(t *testing.T) {
	s := stream(t)
	r := rng(t)
	for _, n := range []int{1, 1000, 1<<16 + 3} {
		for _, mix := range [][2]float64{{0, 0}, {0.5, 0}, {0.68, 0.31}, {0, 1}, {1, 0}} {
			x := ref.Fr(r, n)
			sha256Like(r, x, mix[0], mix[1])
			v := upload(t, s, x)
			for _, m := range []int{0, n / 3, n} {
				nz, units := countUnits(x[:m])
				if gnz, gu, err := s.Count(v, m); err != nil || gnz != nz || gu != units {
					t.Fatalf("%d of %d, %v zeros and units: %d nonzero and %d units (%v), want %d and %d", m, n, mix, gnz, gu, err, nz, units)
				}
			}
			if _, _, err := s.Count(v, n+1); err == nil {
				t.Fatalf("a count of %d elements of %d: no error", n+1, n)
			}
		}
	}
}

// MSMs over mostly zero or unit scalars (PlanMSM's Sparse: the units
// summed apart and the others gathered on the device) against
// gnark-crypto: G1 and G2, plain and over a table, the whole vector and a
// prefix of it, at mixes on both sides of the half that decides, units
// alone and zeros alone; the plan's window and counts checked.
func TestMSMOverMostlyZeroScalars(t *testing.T) {
	s := stream(t)
	r := rng(t)
	d := device(t)
	ctx := context.Background()
	for _, logn := range slices.Compact([]int{16, max(16, min(maxLog(), 20))}) {
		n := 1 << logn
		p1, _, sc := msmInputs(r, n, false)
		_, p2, _ := msmInputs(r, n, true)
		id := strconv.Itoa(logn)
		// n - 3 at 2^16 is under countFrom: the dense MSM, uncounted
		b1, err := d.LoadG1("test-sparse-g1-"+id, p1)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := d.LoadG2("test-sparse-g2-"+id, p2)
		if err != nil {
			t.Fatal(err)
		}
		t1, err := d.LoadG1Table("test-sparse-t1-"+id, p1, TableWindow(n))
		if err != nil {
			t.Fatal(err)
		}
		t2, err := d.LoadG2Table("test-sparse-t2-"+id, p2, TableWindow(n))
		if err != nil {
			t.Fatal(err)
		}
		// zeros, then units (1 and -1) among the rest: dense, sparse, sha256's
		// mix, units alone, nothing but zeros
		for _, mix := range [][2]float64{{0.3, 0}, {0.6, 0}, {0.2, 0.5}, {0.99, 0}, {0.68, 0.31}, {0, 1}, {1, 0}} {
			x := slices.Clone(sc)
			sha256Like(r, x, mix[0], mix[1])
			v := upload(t, s, x)
			for _, m := range []int{n, n - 3} {
				nz, units := countUnits(x[:m])
				want := MSMPlan{Window: Window(m), Nonzero: m} // not counted
				if m >= countFrom {
					want.Nonzero, want.Units, want.Sparse = nz, units, nz-units <= m/2
					if want.Sparse {
						want.Window = Window(nz - units)
					}
				}
				zeros := mix
				if p, err := s.PlanMSM(v, m, 0); err != nil || p != want {
					t.Fatalf("2^%d, %d scalars, %v zeros and units: plan %+v (%v), want %+v", logn, m, zeros, p, err, want)
				}
				var want1 curve.G1Jac
				want1.MultiExp(p1[:m], x[:m], ecc.MultiExpConfig{})
				var want2 curve.G2Jac
				want2.MultiExp(p2[:m], x[:m], ecc.MultiExpConfig{})
				for _, b := range []*G1Bases{b1, t1} {
					if got, err := s.MSMG1(ctx, b, v, m); err != nil || !got.Equal(&want1) {
						t.Fatalf("msm g1 2^%d (table %d), %d scalars, %v zeros and units (%+v): differs from gnark (%v)", logn, b.window, m, zeros, want, err)
					}
				}
				for _, b := range []*G2Bases{b2, t2} {
					if got, err := s.MSMG2(ctx, b, v, m); err != nil || !got.Equal(&want2) {
						t.Fatalf("msm g2 2^%d (table %d), %d scalars, %v zeros and units (%+v): differs from gnark (%v)", logn, b.window, m, zeros, want, err)
					}
				}
				t.Logf("2^%d, %d scalars, %v zeros and units: %+v; g1 and g2, plain and over tables, equal gnark's", logn, m, zeros, want)
			}
		}
	}
}

// MSMScratch, which the device memory estimate counts the wider windows
// by, bounds what an MSM takes from the device's pool, and closely: G1
// and G2 (their XYZZ accumulation), plain and over a table, c = 16 and
// 20, at 2^16 and the largest size tested up to 2^20; and a sparse MSM
// (sha256's mix) takes no more than the dense one of Window(n).
func TestMSMScratchBoundsWhatAnMSMTakes(t *testing.T) {
	d := deviceWith(t, Options{Accum: AccumXYZZ}) // G2 by the XYZZ segments
	s := streamOn(t, d)
	r := rng(t)
	ctx := context.Background()
	for _, logn := range slices.Compact([]int{16, max(16, min(maxLog(), 20))}) {
		n := 1 << logn
		_, p2, sc := msmInputs(r, n, true)
		p1, _, _ := msmInputs(r, n, false)
		v := upload(t, s, sc)
		b1, err := d.LoadG1("test-scratch-g1-"+strconv.Itoa(logn), p1)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := d.LoadG2("test-scratch-g2-"+strconv.Itoa(logn), p2)
		if err != nil {
			t.Fatal(err)
		}
		tc := TableWindow(n)
		t1, err := d.LoadG1Table("test-scratch-t1-"+strconv.Itoa(logn), p1, tc)
		if err != nil {
			t.Fatal(err)
		}
		x := slices.Clone(sc)
		sha256Like(r, x, 0.68, 0.31)
		sparse := upload(t, s, x)
		for _, m := range []struct {
			what  string
			c     int
			table bool
			xyzz  int
			run   func() error
		}{
			{"g1 c=16", 16, false, G1XYZZBytes, func() error { _, err := s.MSMG1Window(ctx, b1, v, n, 16); return err }},
			{"g1 c=20", 20, false, G1XYZZBytes, func() error { _, err := s.MSMG1Window(ctx, b1, v, n, 20); return err }},
			{"g2 c=16", 16, false, G2XYZZBytes, func() error { _, err := s.MSMG2Window(ctx, b2, v, n, 16); return err }},
			{"g2 c=20", 20, false, G2XYZZBytes, func() error { _, err := s.MSMG2Window(ctx, b2, v, n, 20); return err }},
			{"g1 table", tc, true, G1XYZZBytes, func() error { _, err := s.MSMG1(ctx, t1, v, n); return err }},
			// over sha256's mix of scalars (the units summed apart),
			// within what the estimate counts: Window(n)'s dense MSM
			{"g1 sparse", Window(n), false, G1XYZZBytes, func() error { _, err := s.MSMG1(ctx, b1, sparse, n); return err }},
			{"g2 sparse", Window(n), false, G2XYZZBytes, func() error { _, err := s.MSMG2(ctx, b2, sparse, n); return err }},
		} {
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			before, _, err := d.PoolUsage(true)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.run(); err != nil {
				t.Fatal(err)
			}
			_, high, err := d.PoolUsage(false)
			if err != nil {
				t.Fatal(err)
			}
			took, bound := high-before, MSMScratch(n, m.c, m.table, m.xyzz)
			t.Logf("2^%d %s: took %d bytes, MSMScratch %d", logn, m.what, took, bound)
			if took > bound || took < bound/2 && !strings.HasSuffix(m.what, "sparse") {
				t.Errorf("2^%d %s: the MSM took %d bytes of the pool, MSMScratch says %d", logn, m.what, took, bound)
			}
		}
	}
}

// MSMs over precomputed tables (LoadG1Table, LoadG2Table) against
// gnark-crypto: the default table window and wider ones, the whole table
// and a prefix of it, and scalars whose every digit is 1 (every window's
// point in one bucket).
func TestMSMTable(t *testing.T) {
	s := stream(t)
	r := rng(t)
	d := device(t)
	ctx := context.Background()
	for _, logn := range append([]int{0, 4}, sizes(10)...) {
		n := 1 << logn
		p1, _, sc := msmInputs(r, n, false)
		_, p2, _ := msmInputs(r, n, true)
		v := upload(t, s, sc)
		windows := []int{TableWindow(n)}
		if logn == 10 {
			windows = append(windows, 5, 13)
		}
		if logn >= 16 {
			windows = append(windows, 16, 20)
		}
		m := max(n-1, 1) // a prefix of the table's rows
		for _, k := range []int{n, m} {
			var want curve.G1Jac
			if _, err := want.MultiExp(p1[:k], sc[:k], ecc.MultiExpConfig{}); err != nil {
				t.Fatal(err)
			}
			var want2 curve.G2Jac
			if _, err := want2.MultiExp(p2[:k], sc[:k], ecc.MultiExpConfig{}); err != nil {
				t.Fatal(err)
			}
			for _, c := range windows {
				key := fmt.Sprintf("test-table-%d-%d", logn, c)
				b, err := d.LoadG1Table(key, p1, c)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.MSMG1(ctx, b, v, k)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Equal(&want) {
					t.Fatalf("msm g1 over a table of 2^%d, c=%d, first %d: differs from gnark", logn, c, k)
				}
				if logn <= 22 {
					b2, err := d.LoadG2Table(key, p2, c)
					if err != nil {
						t.Fatal(err)
					}
					got2, err := s.MSMG2(ctx, b2, v, k)
					if err != nil {
						t.Fatal(err)
					}
					if !got2.Equal(&want2) {
						t.Fatalf("msm g2 over a table of 2^%d, c=%d, first %d: differs from gnark", logn, c, k)
					}
				}
				if err := d.Evict(key); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("msm over tables 2^%d ok (windows %v)", logn, windows)
	}
	// digit 1 in every window: all n·W pairs in bucket 0, at the table
	// window of 2^12 and at c = 16 (a bucket of 16n pairs among 2^15)
	n := 1 << 12
	p1, _, _ := msmInputs(r, n, false)
	for _, c := range []int{TableWindow(n), 16} {
		var one big.Int
		for w := 0; w*c < 254; w++ {
			one.SetBit(&one, w*c, 1)
		}
		sc := make([]fr.Element, n)
		for i := range sc {
			sc[i].SetBigInt(&one)
		}
		var want curve.G1Jac
		want.MultiExp(p1, sc, ecc.MultiExpConfig{})
		key := fmt.Sprintf("test-table-ones-%d", c)
		b, err := d.LoadG1Table(key, p1, c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.MSMG1(ctx, b, upload(t, s, sc), n)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(&want) {
			t.Fatalf("msm g1 over a table (c=%d) with every digit 1 differs from gnark", c)
		}
		if err := d.Evict(key); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSum(t *testing.T) {
	s := stream(t)
	r := rng(t)
	d := device(t)
	n := 1 << 12
	p1, _, _ := msmInputs(r, n, false)
	_, p2, _ := msmInputs(r, n, true)
	b1, err := d.LoadG1("test-sum-g1", p1)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := d.LoadG2("test-sum-g2", p2)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []int{0, 1, 3, 1000, 50000} {
		idx := make([]int32, m)
		for i := range idx {
			idx[i] = int32(r.IntN(n))
		}
		if m > 3 {
			idx[0], idx[1], idx[2] = 4, 2, 3 // infinity, a repeated point
		}
		w1, w2 := naiveSums(p1, p2, idx)
		g1, err := s.SumG1(context.Background(), b1, idx)
		if err != nil {
			t.Fatal(err)
		}
		if !g1.Equal(&w1) {
			t.Fatalf("sum g1 of %d differs", m)
		}
		g2, err := s.SumG2(context.Background(), b2, idx)
		if err != nil {
			t.Fatal(err)
		}
		if !g2.Equal(&w2) {
			t.Fatalf("sum g2 of %d differs", m)
		}
	}
}

// naiveSums adds p1[i] and p2[i] for i in idx one point at a time.
func naiveSums(p1 []curve.G1Affine, p2 []curve.G2Affine, idx []int32) (curve.G1Jac, curve.G2Jac) {
	var w1 curve.G1Jac
	var w2 curve.G2Jac
	w1.X.SetOne()
	w1.Y.SetOne()
	w2.X.SetOne()
	w2.Y.SetOne()
	for _, i := range idx {
		w1.AddMixed(&p1[i])
		w2.AddMixed(&p2[i])
	}
	return w1, w2
}

// TestOverlap checks that one stream's upload runs while another stream's
// kernel runs: the two intervals, timed with events, intersect.
func TestOverlap(t *testing.T) {
	d := device(t)
	up, work := stream(t), stream(t)
	const n = 1 << 24
	host, err := NewPinned(n)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Free()
	copy(host.Slice(), ref.Fr(rng(t), 1<<12))
	dst, err := up.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Free(dst)
	busyV, err := work.Alloc(1 << 22)
	if err != nil {
		t.Fatal(err)
	}
	defer work.Free(busyV)
	work.Sync()
	up.Sync()
	ev := make([]*Event, 5)
	for i := range ev {
		if ev[i], err = d.NewEvent(); err != nil {
			t.Fatal(err)
		}
		defer ev[i].Close()
	}
	// origin, kernel start/end, upload start/end
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(work.Record(ev[0]))
	must(work.Record(ev[1]))
	must(work.FrSquarings(busyV, 2000))
	must(work.Record(ev[2]))
	must(up.Record(ev[3]))
	must(up.UploadPinned(dst, host, false))
	must(up.Record(ev[4]))
	must(up.Sync())
	must(work.Sync())
	at := make([]float32, 5)
	for i := 1; i < 5; i++ {
		if at[i], err = Elapsed(ev[0], ev[i]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("kernel [%.3f, %.3f] ms, upload [%.3f, %.3f] ms (%.1f GB/s)", at[1], at[2], at[3], at[4], float64(n*frBytes)/float64(at[4]-at[3])/1e6)
	if !(at[3] < at[2] && at[1] < at[4]) {
		t.Fatalf("upload [%.3f, %.3f] and kernel [%.3f, %.3f] do not overlap", at[3], at[4], at[1], at[2])
	}
}

// TestMulGenerator checks the fixed-base kernels against gnark-crypto's
// ScalarMultiplication of the generators, edge scalars (0, 1, r-1, 2,
// r-2) first, across chunk boundaries (a chunk of 1000 scalars), and at
// the sizes up to maxLog, at most 2^20 (gnark-crypto's G2 batch at 2^24
// would take minutes), against BatchScalarMultiplication.
func TestMulGenerator(t *testing.T) {
	s := stream(t)
	r := rng(t)
	_, _, g1, g2 := curve.Generators()
	sc := make([]fr.Element, 2500)
	sc[1].SetOne()
	sc[2].SetInt64(-1)
	sc[3].SetUint64(2)
	sc[4].SetInt64(-2)
	copy(sc[5:], ref.Fr(r, len(sc)-5))
	defer func(c int) { fixedChunk = c }(fixedChunk)
	fixedChunk = 1000
	p1 := make([]curve.G1Affine, len(sc))
	p2 := make([]curve.G2Affine, len(sc))
	if err := s.MulGeneratorG1(context.Background(), p1, sc); err != nil {
		t.Fatal(err)
	}
	if err := s.MulGeneratorG2(context.Background(), p2, sc); err != nil {
		t.Fatal(err)
	}
	for i := range sc {
		var k big.Int
		sc[i].BigInt(&k)
		var w1 curve.G1Affine
		var w2 curve.G2Affine
		w1.ScalarMultiplication(&g1, &k)
		w2.ScalarMultiplication(&g2, &k)
		if p1[i] != w1 || p2[i] != w2 {
			t.Fatalf("scalar %d (%s): g1 equal %v, g2 equal %v", i, sc[i].String(), p1[i] == w1, p2[i] == w2)
		}
	}
	fixedChunk = 1 << 22
	for logn := 12; logn <= min(maxLog(), 20); logn += 4 {
		n := 1 << logn
		sc := ref.Fr(r, n)
		got1 := make([]curve.G1Affine, n)
		if err := s.MulGeneratorG1(context.Background(), got1, sc); err != nil {
			t.Fatal(err)
		}
		want1 := curve.BatchScalarMultiplicationG1(&g1, sc)
		got2 := make([]curve.G2Affine, n)
		if err := s.MulGeneratorG2(context.Background(), got2, sc); err != nil {
			t.Fatal(err)
		}
		want2 := curve.BatchScalarMultiplicationG2(&g2, sc)
		for i := range sc {
			if got1[i] != want1[i] || got2[i] != want2[i] {
				t.Fatalf("2^%d: point %d differs (g1 %v, g2 %v)", logn, i, got1[i] == want1[i], got2[i] == want2[i])
			}
		}
		t.Logf("2^%d: g1 and g2 points equal gnark-crypto's", logn)
	}
}
