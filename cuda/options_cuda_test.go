//go:build cuda

package cuda

import (
	"context"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// Options out of range are refused by Open before any device is touched
// (no GPU needed), naming the field.
func TestOpenRefusesOptionsOutOfRange(t *testing.T) {
	for o, want := range map[Options]string{
		{MSMWindow: 3}:     "msm window 3",
		{MSMWindow: 25}:    "msm window 25",
		{AffineLevels: -1}: "affine levels -1",
		{Accum: 7}:         "accumulation 7",
		{SumThreads: -2}:   "sum threads -2",
	} {
		if d, err := Open(0, o); d != nil || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(0, %+v) = %v, %v; want an error naming %q", o, d, err, want)
		}
	}
}

// A device opened with every option set runs its MSMs and sums with
// them and gets gnark's results: the forced window is the plan's, the
// accumulation is batch-affine for G1 too, stopped after one level, the
// sums run on 7 threads, and the phases are printed (profiling).
func TestOptionsReachTheKernels(t *testing.T) {
	d := deviceWith(t, Options{MSMWindow: 11, AffineMax: 1 << 40, AffineLevels: 1, Accum: AccumAffine, SumThreads: 7, Profile: true})
	s := streamOn(t, d)
	r := rng(t)
	ctx := context.Background()
	const n = 1 << 17 // above countFrom: PlanMSM counts the scalars
	p1, _, sc := msmInputs(r, n, false)
	_, p2, _ := msmInputs(r, n, true)
	v := upload(t, s, sc)
	if p, err := s.PlanMSM(v, n, 0); err != nil || p.Window != 11 {
		t.Fatalf("plan %+v (%v), want the forced window 11", p, err)
	}
	b1, err := d.LoadG1("test-options-g1", p1)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := d.LoadG2("test-options-g2", p2)
	if err != nil {
		t.Fatal(err)
	}
	var w1 curve.G1Jac
	w1.MultiExp(p1, sc, ecc.MultiExpConfig{})
	if got, err := s.MSMG1(ctx, b1, v, n); err != nil || !got.Equal(&w1) {
		t.Fatalf("msm g1 with every option set differs from gnark (%v)", err)
	}
	var w2 curve.G2Jac
	w2.MultiExp(p2, sc, ecc.MultiExpConfig{})
	if got, err := s.MSMG2(ctx, b2, v, n); err != nil || !got.Equal(&w2) {
		t.Fatalf("msm g2 with every option set differs from gnark (%v)", err)
	}
	idx := make([]int32, 5000)
	for i := range idx {
		idx[i] = int32(r.IntN(n))
	}
	s1, s2 := naiveSums(p1, p2, idx)
	if got, err := s.SumG1(ctx, b1, idx); err != nil || !got.Equal(&s1) {
		t.Fatalf("sum g1 on 7 threads differs (%v)", err)
	}
	if got, err := s.SumG2(ctx, b2, idx); err != nil || !got.Equal(&s2) {
		t.Fatalf("sum g2 on 7 threads differs (%v)", err)
	}
}
