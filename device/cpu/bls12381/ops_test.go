package bls12381

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

func randomFr(n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].MustSetRandom()
	}
	return v
}

func load(t *testing.T, s cdev.Stream, x []fr.Element) device.Vector {
	t.Helper()
	v, err := s.Alloc(len(x))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Upload(v, x, device.FormMontgomery); err != nil {
		t.Fatal(err)
	}
	return v
}

func back(t *testing.T, s cdev.Stream, v device.Vector) []fr.Element {
	t.Helper()
	out := make([]fr.Element, v.Len())
	if err := s.Download(out, v); err != nil {
		t.Fatal(err)
	}
	return out
}

// The NTTs are gnark-crypto's on the domain's prefix of a longer vector;
// the rest of the vector is left alone.
func TestNTTIsTheDomainsFFTOnThePrefix(t *testing.T) {
	_, s := newStream(t)
	ctx := context.Background()
	const n = 64
	domain := fft.NewDomain(n)
	for _, inverse := range []bool{false, true} {
		for _, dec := range []fft.Decimation{fft.DIF, fft.DIT} {
			for _, coset := range []bool{false, true} {
				x := randomFr(n + 5)
				want := append([]fr.Element(nil), x...)
				var opts []fft.Option
				if coset {
					opts = append(opts, fft.OnCoset())
				}
				v := load(t, s, x)
				var err error
				if inverse {
					domain.FFTInverse(want[:n], dec, opts...)
					err = s.FFTInverse(ctx, v, domain, dec, coset)
				} else {
					domain.FFT(want[:n], dec, opts...)
					err = s.FFT(ctx, v, domain, dec, coset)
				}
				if err != nil {
					t.Fatal(err)
				}
				got := back(t, s, v)
				for i := range want {
					if !got[i].Equal(&want[i]) {
						t.Fatalf("inverse=%v dec=%v coset=%v: differs at %d", inverse, dec, coset, i)
					}
				}
			}
		}
	}
	if err := s.FFT(ctx, load(t, s, randomFr(n-1)), domain, fft.DIF, false); err == nil {
		t.Error("fft of a vector shorter than the domain succeeded")
	}
	x := randomFr(n)
	v := load(t, s, x)
	if err := s.BitReverse(ctx, v, n); err != nil {
		t.Fatal(err)
	}
	fft.BitReverse(x)
	for i, g := range back(t, s, v) {
		if !g.Equal(&x[i]) {
			t.Fatalf("bit reverse differs at %d", i)
		}
	}
	if err := s.BitReverse(ctx, v, 48); err == nil {
		t.Error("bit reverse of 48 scalars succeeded")
	}
}

func TestVectorOpsComputeEachElementInPlaceOrNot(t *testing.T) {
	_, s := newStream(t)
	ctx := context.Background()
	const n = 3001 // above one parallel chunk, not a multiple of it
	a, b := randomFr(n), randomFr(n)
	a[0].SetInt64(-1)
	b[0].SetInt64(-1)
	var c fr.Element
	c.SetInt64(-2)
	cases := []struct {
		name string
		run  func(dst, x, y device.Vector) error
		want func(z, x, y *fr.Element)
	}{
		{"mul", func(d, x, y device.Vector) error { return s.Mul(ctx, d, x, y) }, func(z, x, y *fr.Element) { z.Mul(x, y) }},
		{"add", func(d, x, y device.Vector) error { return s.Add(ctx, d, x, y) }, func(z, x, y *fr.Element) { z.Add(x, y) }},
		{"sub", func(d, x, y device.Vector) error { return s.Sub(ctx, d, x, y) }, func(z, x, y *fr.Element) { z.Sub(x, y) }},
		{"scale", func(d, x, _ device.Vector) error { return s.Scale(ctx, d, x, c) }, func(z, x, _ *fr.Element) { z.Mul(x, &c) }},
		{"add scalar", func(d, x, _ device.Vector) error { return s.AddScalar(ctx, d, x, c) }, func(z, x, _ *fr.Element) { z.Add(x, &c) }},
	}
	for _, tc := range cases {
		for _, inPlace := range []bool{false, true} {
			x, y := load(t, s, a), load(t, s, b)
			dst := x
			if !inPlace {
				dst = load(t, s, make([]fr.Element, n))
			}
			if err := tc.run(dst, x, y); err != nil {
				t.Fatal(err)
			}
			got := back(t, s, dst)
			for i := range got {
				var w fr.Element
				tc.want(&w, &a[i], &b[i])
				if !got[i].Equal(&w) {
					t.Fatalf("%s (in place %v): differs at %d", tc.name, inPlace, i)
				}
			}
		}
	}
	short := load(t, s, a[:n-1])
	if err := s.Sub(ctx, load(t, s, a), short, load(t, s, a)); err == nil || !strings.Contains(err.Error(), "vectors of") {
		t.Errorf("sub of two lengths: %v, want an error naming the lengths", err)
	}
	s.Free(short)
	if err := s.Scale(ctx, short, short, c); err == nil {
		t.Error("scale of a freed vector succeeded")
	}
}

func TestEvictDropsTheBasesAndRefusesTheirHandles(t *testing.T) {
	d, s := newStream(t)
	pts := randomG1(8)
	b, _ := d.LoadG1("k", pts)
	d.LoadG2("k", []curve.G2Affine{{}, {}})
	if got, want := d.Resident(), uint64(8*2*fp.Bytes+2*4*fp.Bytes); got != want {
		t.Errorf("resident %d bytes, want %d", got, want)
	}
	if err := d.Evict("k"); err != nil {
		t.Fatal(err)
	}
	if d.Resident() != 0 {
		t.Errorf("resident %d bytes after evict", d.Resident())
	}
	v := load(t, s, randomFr(8))
	if _, err := s.MSMG1(context.Background(), b, v, 8); err == nil || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("msm over evicted bases: %v, want an error naming the key", err)
	}
	if err := d.Evict("k"); err == nil || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("evict of a key not resident: %v, want an error naming it", err)
	}
	b2, _ := d.LoadG1("k", pts)
	if got, err := s.MSMG1(context.Background(), b2, v, 8); err != nil || got.Equal(new(curve.G1Jac)) {
		t.Errorf("msm after reloading the key: %v", err)
	}
}

// Evicting bases while other streams run MSMs over them is a race the
// backend settles: each MSM either completes or fails naming the key,
// never reads dropped points (go test -race checks the rest).
func TestEvictDuringMSMsFailsThemCleanly(t *testing.T) {
	d, _ := newStream(t)
	pts := randomG1(64)
	scalars := randomFr(64)
	want := naiveG1(pts, scalars)
	b, _ := d.LoadG1("k", pts)
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			s, _ := d.NewStream()
			v, _ := s.Alloc(64)
			if err := s.Upload(v, scalars, device.FormMontgomery); err != nil {
				errs <- err
				return
			}
			got, err := s.MSMG1(context.Background(), b, v, 64)
			if err == nil && !got.Equal(&want) {
				err = errors.New("msm during evict returned a wrong sum")
			} else if err != nil && !strings.Contains(err.Error(), "used after Evict") {
				err = fmt.Errorf("msm during evict: %w", err)
			} else {
				err = nil
			}
			errs <- err
		}()
	}
	if err := d.Evict("k"); err != nil {
		t.Fatal(err)
	}
	for w := 0; w < 4; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
