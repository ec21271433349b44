//go:build cuda

package device

import (
	"context"
	"errors"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// TestCUDAMatchesCPU runs the same work through the cuda and cpu backends.
func TestCUDAMatchesCPU(t *testing.T) {
	gb, err := NewCUDA()
	if errors.Is(err, ErrNoDevice) {
		t.Skip("no CUDA device: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Close()
	cb, err := NewCPU(1)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	ctx := context.Background()
	const n = 1 << 12
	_, _, g1, g2 := curve.Generators()
	ks := make([]fr.Element, 64)
	for i := range ks {
		ks[i].SetRandom()
	}
	p1s := curve.BatchScalarMultiplicationG1(&g1, ks)
	p2s := curve.BatchScalarMultiplicationG2(&g2, ks)
	p1 := make([]curve.G1Affine, n)
	p2 := make([]curve.G2Affine, n)
	for i := range p1 {
		p1[i], p2[i] = p1s[i%64], p2s[i%64]
	}
	rnd := func() []fr.Element {
		v := make([]fr.Element, n)
		for i := range v {
			v[i].SetRandom()
		}
		return v
	}
	a, b, c, sc := rnd(), rnd(), rnd(), rnd()
	idx := []int32{0, 5, 5, 17, n - 1}
	domain := fft.NewDomain(n)

	type out struct {
		h  []fr.Element
		m1 curve.G1Jac
		m2 curve.G2Jac
		s1 curve.G1Jac
		s2 curve.G2Jac
	}
	run := func(be Backend) out {
		d, err := be.Device(0)
		if err != nil {
			t.Fatal(err)
		}
		b1, err := d.LoadG1("p1", p1)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := d.LoadG2("p2", p2)
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var o out
		vs := make([]Vector, 4)
		for i, x := range [][]fr.Element{a, b, c, sc} {
			if vs[i], err = s.Alloc(n); err != nil {
				t.Fatal(err)
			}
			if err := s.Upload(vs[i], x, FormMontgomery); err != nil {
				t.Fatal(err)
			}
		}
		if o.m1, err = s.MSMG1(ctx, b1, vs[3], n); err != nil {
			t.Fatal(err)
		}
		if o.m2, err = s.MSMG2(ctx, b2, vs[3], n); err != nil {
			t.Fatal(err)
		}
		if o.s1, err = s.SumG1(ctx, b1, idx); err != nil {
			t.Fatal(err)
		}
		if o.s2, err = s.SumG2(ctx, b2, idx); err != nil {
			t.Fatal(err)
		}
		if err := s.ComputeH(ctx, vs[0], vs[1], vs[2], domain); err != nil {
			t.Fatal(err)
		}
		o.h = make([]fr.Element, n)
		if err := s.Download(o.h, vs[0]); err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			s.Free(v)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		return o
	}
	g, w := run(gb), run(cb)
	for i := range w.h {
		if !g.h[i].Equal(&w.h[i]) {
			t.Fatalf("compute h differs at %d", i)
		}
	}
	if !g.m1.Equal(&w.m1) || !g.m2.Equal(&w.m2) {
		t.Fatal("msm differs")
	}
	if !g.s1.Equal(&w.s1) || !g.s2.Equal(&w.s2) {
		t.Fatal("sum differs")
	}
}

// TestCUDAStreamTimesItsWorkWithEvents checks device.Timer on the cuda
// stream: ComputeH is queued asynchronously, so the events' time covers
// the NTTs that a wall-clock measure around the call would miss.
func TestCUDAStreamTimesItsWorkWithEvents(t *testing.T) {
	be, err := NewCUDA()
	if errors.Is(err, ErrNoDevice) {
		t.Skip("no CUDA device: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	d, err := be.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tm, ok := st.(Timer)
	if !ok {
		t.Fatalf("cuda stream %T does not implement device.Timer", st)
	}
	const n = 1 << 16
	var vs [3]Vector
	src := make([]fr.Element, n)
	for i := range src {
		src[i].SetUint64(uint64(i + 1))
	}
	for i := range vs {
		if vs[i], err = st.Alloc(n); err != nil {
			t.Fatal(err)
		}
		defer st.Free(vs[i])
		if err := st.Upload(vs[i], src, FormMontgomery); err != nil {
			t.Fatal(err)
		}
	}
	domain := fft.NewDomain(n)
	for i := 0; i < 2; i++ { // the second run reuses the stream's events
		gpu, ok, err := tm.Time(func() error { return st.ComputeH(context.Background(), vs[0], vs[1], vs[2], domain) })
		if err != nil || !ok || gpu <= 0 {
			t.Fatalf("run %d: Time = %v, %v, %v; want a positive device time", i, gpu, ok, err)
		}
		t.Logf("run %d: compute h of 2^16 took %v on the device", i, gpu)
	}
	wantErr := errors.New("step failed")
	if _, ok, err := tm.Time(func() error { return wantErr }); err != wantErr || ok {
		t.Errorf("Time of a failing step = %v, %v; want its error, not timed", ok, err)
	}
}
