//go:build cuda

package cuda

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// MSMs and sums over bases in host memory, in chunks that do not divide
// the length (and of one point, and larger than the input), are gnark's
// results on fresh random inputs with the edge cases of msmInputs.
func TestHostBasesMatchGnarkCrypto(t *testing.T) {
	s := stream(t)
	r := rng(t)
	ctx := context.Background()
	const n = 5000
	p1, _, sc := msmInputs(r, n, false)
	_, p2, _ := msmInputs(r, n, true)
	v := upload(t, s, sc)
	for _, m := range []int{0, 1, 17, n} {
		var w1 curve.G1Jac
		var w2 curve.G2Jac
		if _, err := w1.MultiExp(p1[:m], sc[:m], ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		if _, err := w2.MultiExp(p2[:m], sc[:m], ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{1, 1 << 10, 1999, n + 1} {
			if chunk == 1 && m > 17 {
				continue // 5000 kernel launches
			}
			g1, err := s.MSMG1Host(ctx, p1, v, m, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if !g1.Equal(&w1) {
				t.Fatalf("msm g1 of %d over host bases in chunks of %d differs from gnark", m, chunk)
			}
			g2, err := s.MSMG2Host(ctx, p2, v, m, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if !g2.Equal(&w2) {
				t.Fatalf("msm g2 of %d over host bases in chunks of %d differs from gnark", m, chunk)
			}
		}
	}
	idx := make([]int32, 3000)
	for i := range idx {
		idx[i] = int32(r.IntN(n))
	}
	idx[0], idx[1], idx[2] = 4, 2, 3 // infinity, a repeated point
	w1, w2 := naiveSums(p1, p2, idx)
	for _, chunk := range []int{7, 1 << 10, 4000} {
		g1, err := s.SumG1Host(ctx, p1, idx, chunk)
		if err != nil {
			t.Fatal(err)
		}
		if !g1.Equal(&w1) {
			t.Fatalf("sum g1 over host bases in chunks of %d differs", chunk)
		}
		g2, err := s.SumG2Host(ctx, p2, idx, chunk)
		if err != nil {
			t.Fatal(err)
		}
		if !g2.Equal(&w2) {
			t.Fatalf("sum g2 over host bases in chunks of %d differs", chunk)
		}
	}
	if _, err := s.MSMG1Host(ctx, p1, v, n+1, 64); err == nil {
		t.Error("an msm of more terms than host bases ran")
	}
	if _, err := s.SumG1Host(ctx, p1, []int32{n}, 64); err == nil {
		t.Error("a sum with an index past the host bases ran")
	}
}
