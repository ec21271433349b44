//go:build cuda

package bls12381_test

import (
	"context"
	"errors"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/device/cuda"
)

// backends opens the cuda backend (or skips) and the cpu reference.
func backends(t *testing.T) (gpu, ref device.Backend) {
	t.Helper()
	gb, err := cuda.New(cuda.Options{})
	if errors.Is(err, device.ErrNoDevice) {
		t.Skip("no CUDA device: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gb.Close() })
	cb, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cb.Close() })
	return gb, cb
}

func stream(t *testing.T, be device.Backend) (cdev.Device, cdev.Stream) {
	t.Helper()
	d, err := cdev.Of(be, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return d, s
}

func random(n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].MustSetRandom()
	}
	return v
}

// withEdges puts 0, 1, r-1 and r-2 at the front of v.
func withEdges(v []fr.Element) []fr.Element {
	v[0].SetZero()
	v[1].SetOne()
	v[2].SetInt64(-1)
	v[3].SetInt64(-2)
	return v
}

func upload(t *testing.T, s cdev.Stream, x []fr.Element) device.Vector {
	t.Helper()
	v, err := s.Alloc(len(x))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Free(v) })
	if err := s.Upload(v, x, device.FormMontgomery); err != nil {
		t.Fatal(err)
	}
	return v
}

func download(t *testing.T, s cdev.Stream, v device.Vector) []fr.Element {
	t.Helper()
	out := make([]fr.Element, v.Len())
	if err := s.Download(out, v); err != nil {
		t.Fatal(err)
	}
	return out
}

func equal(t *testing.T, what string, got, want []fr.Element) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d scalars, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("%s: differs from the cpu backend at %d: %s, want %s", what, i, got[i].String(), want[i].String())
		}
	}
}

// TestCUDAMSMAndSumMatchCPU runs the same MSMs and batch additions on
// both backends over fresh random points and scalars.
func TestCUDAMSMAndSumMatchCPU(t *testing.T) {
	gb, cb := backends(t)
	ctx := context.Background()
	const n = 1 << 12
	_, _, g1, g2 := curve.Generators()
	ks := random(64)
	p1s := curve.BatchScalarMultiplicationG1(&g1, ks)
	p2s := curve.BatchScalarMultiplicationG2(&g2, ks)
	p1 := make([]curve.G1Affine, n)
	p2 := make([]curve.G2Affine, n)
	for i := range p1 {
		p1[i], p2[i] = p1s[i%64], p2s[i%64]
	}
	sc := withEdges(random(n))
	idx := []int32{0, 5, 5, 17, n - 1}
	type out struct {
		m1 curve.G1Jac
		m2 curve.G2Jac
		s1 curve.G1Jac
		s2 curve.G2Jac
	}
	run := func(be device.Backend) out {
		d, s := stream(t, be)
		b1, err := d.LoadG1("p1", p1)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := d.LoadG2("p2", p2)
		if err != nil {
			t.Fatal(err)
		}
		v := upload(t, s, sc)
		var o out
		if o.m1, err = s.MSMG1(ctx, b1, v, n-1); err != nil {
			t.Fatal(err)
		}
		if o.m2, err = s.MSMG2(ctx, b2, v, n); err != nil {
			t.Fatal(err)
		}
		if o.s1, err = s.SumG1(ctx, b1, idx); err != nil {
			t.Fatal(err)
		}
		if o.s2, err = s.SumG2(ctx, b2, idx); err != nil {
			t.Fatal(err)
		}
		return o
	}
	g, w := run(gb), run(cb)
	if !g.m1.Equal(&w.m1) || !g.m2.Equal(&w.m2) {
		t.Fatal("msm differs from the cpu backend")
	}
	if !g.s1.Equal(&w.s1) || !g.s2.Equal(&w.s2) {
		t.Fatal("sum differs from the cpu backend")
	}
}

// TestCUDANTTMatchesCPU runs every NTT variant of the contract (forward
// and inverse, DIF and DIT, on the coset or not) and the bit reversal on
// both backends, on a vector longer than the domain (only the domain's
// prefix changes).
func TestCUDANTTMatchesCPU(t *testing.T) {
	gb, cb := backends(t)
	ctx := context.Background()
	for _, logn := range []int{1, 5, 11, 16} {
		n := 1 << logn
		domain := fft.NewDomain(uint64(n))
		for _, inverse := range []bool{false, true} {
			for _, dec := range []fft.Decimation{fft.DIF, fft.DIT} {
				for _, coset := range []bool{false, true} {
					x := withEdges(random(n + 3))
					run := func(be device.Backend) []fr.Element {
						_, s := stream(t, be)
						v := upload(t, s, x)
						f := s.FFT
						if inverse {
							f = s.FFTInverse
						}
						if err := f(ctx, v, domain, dec, coset); err != nil {
							t.Fatal(err)
						}
						return download(t, s, v)
					}
					equal(t, "ntt", run(gb), run(cb))
				}
			}
		}
		x := random(n)
		run := func(be device.Backend) []fr.Element {
			_, s := stream(t, be)
			v := upload(t, s, x)
			if err := s.BitReverse(ctx, v, n); err != nil {
				t.Fatal(err)
			}
			return download(t, s, v)
		}
		equal(t, "bit reverse", run(gb), run(cb))
	}
}

// TestCUDAVectorOpsMatchCPU runs every element-wise operation on both
// backends, into a third vector and in place, over random inputs with
// the field's edge values (0, 1, r-1, r-2) paired with each other.
func TestCUDAVectorOpsMatchCPU(t *testing.T) {
	gb, cb := backends(t)
	ctx := context.Background()
	const n = 100_003 // not a multiple of the kernels' block size
	a, b := withEdges(random(n)), withEdges(random(n))
	b[4], b[5], b[6], b[7] = a[2], a[3], a[0], a[1] // edges meet edges
	var c fr.Element
	c.SetInt64(-1)
	consts := []fr.Element{c, random(1)[0]}
	type op struct {
		name string
		f    func(s cdev.Stream, dst, x, y device.Vector) error
	}
	ops := []op{
		{"mul", func(s cdev.Stream, dst, x, y device.Vector) error { return s.Mul(ctx, dst, x, y) }},
		{"add", func(s cdev.Stream, dst, x, y device.Vector) error { return s.Add(ctx, dst, x, y) }},
		{"sub", func(s cdev.Stream, dst, x, y device.Vector) error { return s.Sub(ctx, dst, x, y) }},
	}
	for _, k := range consts {
		ops = append(ops,
			op{"scale", func(s cdev.Stream, dst, x, _ device.Vector) error { return s.Scale(ctx, dst, x, k) }},
			op{"add scalar", func(s cdev.Stream, dst, x, _ device.Vector) error { return s.AddScalar(ctx, dst, x, k) }},
		)
	}
	for _, o := range ops {
		for _, inPlace := range []bool{false, true} {
			run := func(be device.Backend) []fr.Element {
				_, s := stream(t, be)
				x, y := upload(t, s, a), upload(t, s, b)
				dst := x
				if !inPlace {
					dst = upload(t, s, make([]fr.Element, n))
				}
				if err := o.f(s, dst, x, y); err != nil {
					t.Fatal(err)
				}
				return download(t, s, dst)
			}
			equal(t, o.name, run(gb), run(cb))
		}
	}
	// one length per call
	_, s := stream(t, gb)
	if err := s.Mul(ctx, upload(t, s, a), upload(t, s, a[:n-1]), upload(t, s, a)); err == nil {
		t.Error("mul of vectors of two lengths succeeded")
	}
}

// TestCUDAEvictFreesTheBasesAndRefusesTheirHandles checks Evict and
// Resident on the device: the bytes go back down, the old handle is an
// error, not a read of freed memory, and the key can be loaded again.
func TestCUDAEvictFreesTheBasesAndRefusesTheirHandles(t *testing.T) {
	gb, _ := backends(t)
	d, s := stream(t, gb)
	_, _, g1, _ := curve.Generators()
	pts := curve.BatchScalarMultiplicationG1(&g1, random(256))
	before := d.Resident()
	b, err := d.LoadG1("evict-me", pts)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Resident() - before; got != uint64(len(pts))*2*fp.Bytes {
		t.Errorf("resident grew by %d bytes, want %d", got, len(pts)*2*fp.Bytes)
	}
	if err := d.Evict("evict-me"); err != nil {
		t.Fatal(err)
	}
	if d.Resident() != before {
		t.Errorf("resident %d after evict, want %d", d.Resident(), before)
	}
	v := upload(t, s, random(256))
	if _, err := s.MSMG1(context.Background(), b, v, 256); err == nil {
		t.Error("msm over evicted bases succeeded")
	}
	if err := d.Evict("evict-me"); err == nil {
		t.Error("second evict of a key succeeded")
	}
	if _, err := d.LoadG1("evict-me", pts); err != nil {
		t.Errorf("load after evict: %v", err)
	}
}

// TestCUDAStreamTimesItsWorkWithEvents checks device.Timer on the cuda
// stream: the NTTs are queued asynchronously, so the events' time covers
// work that a wall-clock measure around the calls would miss.
func TestCUDAStreamTimesItsWorkWithEvents(t *testing.T) {
	gb, _ := backends(t)
	_, st := stream(t, gb)
	tm, ok := cdev.As[device.Timer](st)
	if !ok {
		t.Fatalf("cuda stream %T does not implement device.Timer", st)
	}
	const n = 1 << 16
	v := upload(t, st, random(n))
	domain := fft.NewDomain(n)
	for i := 0; i < 2; i++ { // the second run reuses the stream's events
		gpu, ok, err := tm.Time(func() error {
			if err := st.FFTInverse(context.Background(), v, domain, fft.DIF, false); err != nil {
				return err
			}
			return st.FFT(context.Background(), v, domain, fft.DIT, true)
		})
		if err != nil || !ok || gpu <= 0 {
			t.Fatalf("run %d: Time = %v, %v, %v; want a positive device time", i, gpu, ok, err)
		}
		t.Logf("run %d: two NTTs of 2^16 took %v on the device", i, gpu)
	}
	wantErr := errors.New("step failed")
	if _, ok, err := tm.Time(func() error { return wantErr }); err != wantErr || ok {
		t.Errorf("Time of a failing step = %v, %v; want its error, not timed", ok, err)
	}
}
