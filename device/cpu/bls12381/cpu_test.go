package bls12381

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

func randomG1(n int) []curve.G1Affine {
	_, _, g, _ := curve.Generators()
	pts := make([]curve.G1Affine, n)
	for i := range pts {
		var s fr.Element
		s.MustSetRandom()
		var b big.Int
		pts[i].ScalarMultiplication(&g, s.BigInt(&b))
	}
	return pts
}

func naiveG1(pts []curve.G1Affine, scalars []fr.Element) curve.G1Jac {
	var acc curve.G1Jac
	for i := range pts {
		var b big.Int
		var p curve.G1Jac
		p.FromAffine(&pts[i])
		p.ScalarMultiplication(&p, scalars[i].BigInt(&b))
		acc.AddAssign(&p)
	}
	return acc
}

func newStream(t *testing.T) (cdev.Device, cdev.Stream) {
	t.Helper()
	d := NewDevice(0)
	t.Cleanup(d.Close)
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

func TestMSMG1MatchesNaiveSumOverAPrefix(t *testing.T) {
	d, s := newStream(t)
	pts := randomG1(40)
	scalars := make([]fr.Element, 40)
	for i := range scalars {
		scalars[i].MustSetRandom()
	}
	scalars[3].SetZero()
	scalars[5].SetOne()
	bases, err := d.LoadG1("test", pts)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.Alloc(64)
	if err := s.Upload(v, scalars, device.FormMontgomery); err != nil {
		t.Fatal(err)
	}
	got, err := s.MSMG1(context.Background(), bases, v, 30)
	if err != nil {
		t.Fatal(err)
	}
	want := naiveG1(pts[:30], scalars[:30])
	if !got.Equal(&want) {
		t.Error("MSMG1 differs from the naive sum")
	}
}

func TestSumG1IsTheMSMWithScalarsOne(t *testing.T) {
	d, s := newStream(t)
	pts := randomG1(3000) // above one chunk: exercises the parallel split
	bases, _ := d.LoadG1("test", pts)
	idx := []int32{0, 7, 7, 2999, 1500}
	for i := int32(100); i < 2500; i += 3 {
		idx = append(idx, i)
	}
	got, err := s.SumG1(context.Background(), bases, idx)
	if err != nil {
		t.Fatal(err)
	}
	var want curve.G1Jac
	for _, i := range idx {
		want.AddMixed(&pts[i])
	}
	if !got.Equal(&want) {
		t.Error("SumG1 differs from sequential additions")
	}
	if _, err := s.SumG1(context.Background(), bases, []int32{3000}); err == nil {
		t.Error("SumG1 accepted an index past the bases")
	}
}

func TestCanonicalUploadRoundTripsToMontgomery(t *testing.T) {
	_, s := newStream(t)
	src := make([]fr.Element, 100)
	canon := make([]fr.Element, 100)
	for i := range src {
		src[i].MustSetRandom()
		canon[i] = fr.Element(src[i].Bits())
	}
	v, _ := s.Alloc(128)
	if err := s.Upload(v, canon, device.FormCanonical); err != nil {
		t.Fatal(err)
	}
	got := make([]fr.Element, 128)
	if err := s.Download(got, v); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if !got[i].Equal(&src[i]) {
			t.Fatalf("scalar %d: %s, want %s", i, got[i].String(), src[i].String())
		}
	}
	for i := 100; i < 128; i++ {
		if !got[i].IsZero() {
			t.Fatalf("scalar %d past the upload is not zeroed", i)
		}
	}
}

func TestMisuseIsAnErrorNotAPanic(t *testing.T) {
	d, s := newStream(t)
	v, _ := s.Alloc(4)
	s.Free(v)
	if err := s.Upload(v, nil, device.FormMontgomery); err == nil {
		t.Error("upload into a freed vector succeeded")
	}
	w, _ := s.Alloc(2)
	if err := s.Upload(w, make([]fr.Element, 3), device.FormMontgomery); err == nil {
		t.Error("upload of 3 scalars into 2 succeeded")
	}
	bases, _ := d.LoadG1("k", randomG1(2))
	if _, err := s.MSMG1(context.Background(), bases, w, 3); err == nil {
		t.Error("MSM of 3 terms over 2 bases succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.MSMG1(ctx, bases, w, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("MSM on a cancelled context: %v", err)
	}
}

func TestLoadingAKeyTwiceReturnsTheResidentBases(t *testing.T) {
	d, _ := newStream(t)
	a, _ := d.LoadG1("k", randomG1(2))
	b, _ := d.LoadG1("k", randomG1(3))
	if a != b || b.Len() != 2 {
		t.Error("second LoadG1 of a key replaced the resident bases")
	}
}

func TestStreamsOfOneDeviceRunConcurrently(t *testing.T) {
	d, _ := newStream(t)
	pts := randomG1(64)
	bases, _ := d.LoadG1("k", pts)
	scalars := make([]fr.Element, 64)
	for i := range scalars {
		scalars[i].SetUint64(uint64(i))
	}
	want := naiveG1(pts, scalars)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := d.NewStream()
			defer s.Close()
			v, _ := s.Alloc(64)
			defer s.Free(v)
			s.Upload(v, scalars, device.FormMontgomery)
			got, err := s.MSMG1(context.Background(), bases, v, 64)
			if err != nil || !got.Equal(&want) {
				t.Errorf("concurrent MSM: %v", err)
			}
		}()
	}
	wg.Wait()
}
