package bls12381

import (
	"context"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// Host bases run their MSMs a chunk at a time: over a prefix that ends
// mid-chunk, with chunks of one point, and over fewer terms than a chunk,
// the sums are the naive ones, in G1 and G2; sums of ones too. They are
// not counted as resident.
func TestHostBasesGiveTheResidentResultsChunkByChunk(t *testing.T) {
	d, s := newStream(t)
	hb := d.(cdev.HostBases)
	const n = 37
	pts := randomG1(n)
	_, _, _, g2 := curve.Generators()
	pts2 := make([]curve.G2Affine, n)
	scalars := make([]fr.Element, n)
	for i := range scalars {
		scalars[i].MustSetRandom()
		var b big.Int
		pts2[i].ScalarMultiplication(&g2, scalars[i].BigInt(&b)) // any distinct points
		scalars[i].MustSetRandom()
	}
	scalars[0].SetZero()
	v, _ := s.Alloc(n)
	if err := s.Upload(v, scalars, device.FormMontgomery); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, chunk := range []int{1, 5, 64} {
		t.Run("", func(t *testing.T) {
			defer func(c int) { hostChunk = c }(hostChunk)
			hostChunk = chunk
			key := "host/" + string(rune('a'+chunk%26))
			b1, err := hb.HostG1(key, pts)
			if err != nil {
				t.Fatal(err)
			}
			b2, err := hb.HostG2(key, pts2)
			if err != nil {
				t.Fatal(err)
			}
			if r := d.Resident(); r != 0 {
				t.Errorf("host bases counted as %d resident bytes", r)
			}
			for _, m := range []int{0, 1, 23, n} {
				got, err := s.MSMG1(ctx, b1, v, m)
				if err != nil {
					t.Fatal(err)
				}
				if want := naiveG1(pts[:m], scalars[:m]); !got.Equal(&want) {
					t.Errorf("chunk %d: g1 msm of %d terms differs from the naive sum", chunk, m)
				}
				got2, err := s.MSMG2(ctx, b2, v, m)
				if err != nil {
					t.Fatal(err)
				}
				var want2 curve.G2Jac
				if _, err := want2.MultiExp(pts2[:m], scalars[:m], ecc.MultiExpConfig{}); err != nil {
					t.Fatal(err)
				}
				if !got2.Equal(&want2) {
					t.Errorf("chunk %d: g2 msm of %d terms differs from gnark-crypto's", chunk, m)
				}
			}
			idx := []int32{2, 36, 7, 7, 30}
			got, err := s.SumG1(ctx, b1, idx)
			if err != nil {
				t.Fatal(err)
			}
			if want := SumG1Affine(pts, idx); !got.Equal(&want) {
				t.Errorf("chunk %d: sum over host bases differs", chunk)
			}
			if err := d.Evict(key); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A cancelled context stops an MSM over host bases between chunks.
func TestHostBasesMSMStopsWhenCancelled(t *testing.T) {
	defer func(c int) { hostChunk = c }(hostChunk)
	hostChunk = 2
	d, s := newStream(t)
	pts := randomG1(8)
	b, err := d.(cdev.HostBases).HostG1("cancel", pts)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.Alloc(8)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.MSMG1(ctx, b, v, 8); err == nil {
		t.Fatal("an msm over host bases ran under a cancelled context")
	}
}
