package bls12381

import (
	"context"
	"math/big"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// edgeScalars returns 0, 1, r-1, 2 and n-4 random scalars.
func edgeScalars(t *testing.T, n int) []fr.Element {
	t.Helper()
	s := make([]fr.Element, n)
	s[1].SetOne()
	s[2].SetOne()
	s[2].Neg(&s[2])
	s[3].SetUint64(2)
	for i := 4; i < n; i++ {
		if _, err := s[i].SetRandom(); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestMulGeneratorIsScalarMultiplicationAcrossChunks(t *testing.T) {
	defer func(c int) { fixedBaseChunk = c }(fixedBaseChunk)
	fixedBaseChunk = 7
	_, st := newStream(t)
	fb, ok := cdev.As[cdev.FixedBase](st)
	if !ok {
		t.Fatal("the cpu stream has no FixedBase capability")
	}
	sc := edgeScalars(t, 23)
	g1Jac, g2Jac, _, _ := curve.Generators()
	p1 := make([]curve.G1Affine, len(sc))
	p2 := make([]curve.G2Affine, len(sc))
	if err := fb.MulGeneratorG1(context.Background(), p1, sc); err != nil {
		t.Fatal(err)
	}
	if err := fb.MulGeneratorG2(context.Background(), p2, sc); err != nil {
		t.Fatal(err)
	}
	for i := range sc {
		var k big.Int
		sc[i].BigInt(&k)
		var j1 curve.G1Jac
		var j2 curve.G2Jac
		var w1 curve.G1Affine
		var w2 curve.G2Affine
		w1.FromJacobian(j1.ScalarMultiplication(&g1Jac, &k))
		w2.FromJacobian(j2.ScalarMultiplication(&g2Jac, &k))
		if p1[i] != w1 || p2[i] != w2 {
			t.Errorf("scalar %d (%s): generator multiple differs from ScalarMultiplication", i, sc[i].String())
		}
	}
	if !p1[0].X.IsZero() || !p1[0].Y.IsZero() {
		t.Error("0·g1 is not (0, 0)")
	}
	err := fb.MulGeneratorG1(context.Background(), p1[:3], sc)
	if err == nil || !strings.Contains(err.Error(), "23 scalars into 3 points") {
		t.Errorf("error %v, want the length mismatch", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := fb.MulGeneratorG2(ctx, p2, sc); err != context.Canceled {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}
