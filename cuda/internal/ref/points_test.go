package ref

import (
	"math/rand/v2"
	"testing"
)

func TestG1NMakesValidDistinctPoints(t *testing.T) {
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
	rep := G1N(r, 10, 4)
	if rep[1] != rep[5] || rep[1] == rep[2] {
		t.Error("G1N(n=10, m=4) does not repeat 4 distinct points")
	}
}
