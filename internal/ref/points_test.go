package ref

import (
	"math/rand/v2"
	"testing"
)

func TestG1NAndG2NMakeValidDistinctPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(Seed(), 1))
	n := 3*Distinct + 5
	pts := G1N(r, n, 0)
	seen := make(map[[48]byte]bool, n)
	for i := range pts {
		if !pts[i].IsOnCurve() || !pts[i].IsInSubGroup() {
			t.Fatalf("point %d is not in G1", i)
		}
		b := pts[i].Bytes()
		if seen[b] {
			t.Fatalf("point %d repeats an earlier one", i)
		}
		seen[b] = true
	}
	g2 := G2N(r, 2*Distinct+3, 0)
	seen2 := make(map[[96]byte]bool, len(g2))
	for i := range g2 {
		if !g2[i].IsOnCurve() || !g2[i].IsInSubGroup() {
			t.Fatalf("g2 point %d is not in G2", i)
		}
		b := g2[i].Bytes()
		if seen2[b] {
			t.Fatalf("g2 point %d repeats an earlier one", i)
		}
		seen2[b] = true
	}
	rep := G1N(r, 10, 4)
	if rep[1] != rep[5] || rep[1] == rep[2] {
		t.Error("G1N(n=10, m=4) does not repeat 4 distinct points")
	}
}

// BN254's points (curves.go' Points on BN254G1, BN254G2): valid and
// distinct, past Distinct too.
func TestBN254PointsAreValidAndDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(Seed(), 2))
	g1 := Points(r, BN254G1, Distinct+7, 0)
	seen := map[[32]byte]bool{}
	for i := range g1 {
		if !g1[i].IsOnCurve() || !g1[i].IsInSubGroup() {
			t.Fatalf("point %d is not in G1", i)
		}
		b := g1[i].Bytes()
		if seen[b] {
			t.Fatalf("point %d repeats an earlier one", i)
		}
		seen[b] = true
	}
	for i, p := range Points(r, BN254G2, 20, 0) {
		if !p.IsOnCurve() || !p.IsInSubGroup() {
			t.Fatalf("g2 point %d is not in G2", i)
		}
	}
}
