//go:build cudahost

package hostcheck

import (
	"math/rand/v2"
	"testing"

	blsfp "github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/prooflane/prooflane/internal/ref"
)

func rng(t *testing.T) *rand.Rand {
	seed := ref.Seed()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 1))
}

// TestFp64 checks fp64.cuh's FP64-pipe multiplication against
// gnark-crypto: random pairs, every pair of the edge patterns, and chains
// of squarings kept in its representation (its bounds say values stay
// below p in magnitude along a chain; a chain that drifted would fail).
func TestFp64(t *testing.T) {
	random := func() (x blsfp.Element) {
		x.SetRandom() // raw limbs uniform below p
		return
	}
	for i := 0; i < 20000; i++ {
		a, b := random(), random()
		var w blsfp.Element
		if got := Fp64Mul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
			t.Fatalf("fp64 mul of raw %x and %x: %x, want %x", a, b, got, w)
		}
	}
	es := edges[blsfp.Element]()
	for _, a := range es {
		for _, b := range es {
			var w blsfp.Element
			if got := Fp64Mul(&a, &b); !got.Equal(w.Mul(&a, &b)) {
				t.Fatalf("fp64 mul of raw %x and %x: %x, want %x", a, b, got, w)
			}
		}
	}
	for i := 0; i < 50; i++ {
		a := random()
		if i < len(es) {
			a = es[i]
		}
		w := a
		for k := 0; k < 300; k++ {
			w.Square(&w)
		}
		if got := Fp64Squarings(&a, 300); !got.Equal(&w) {
			t.Fatalf("fp64: 300 squarings of raw %x: %x, want %x", a, got, w)
		}
	}
}
