//go:build cuda

package cuda

import (
	"context"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/internal/ref"
)

// go test -tags cuda -run - -bench . ./cuda (on a GPU machine); cudabench
// prints the same with the gnark-crypto column.

var benchLogs = []int{16, 20, 22, 24}

func BenchmarkNTT(b *testing.B) {
	s := stream(b)
	r := rng(b)
	for _, l := range benchLogs {
		b.Run(fmt.Sprintf("2^%d", l), func(b *testing.B) {
			d := fft.NewDomain(1 << l)
			v := upload(b, s, ref.Fr(r, 1<<l))
			if err := s.FFT(v, d, true, false); err != nil { // tables
				b.Fatal(err)
			}
			s.Sync()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.FFT(v, d, true, false); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Sync(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func BenchmarkMSMG1(b *testing.B) {
	s := stream(b)
	r := rng(b)
	d := device(b)
	for _, l := range benchLogs {
		b.Run(fmt.Sprintf("2^%d", l), func(b *testing.B) {
			n := 1 << l
			bases, err := d.LoadG1(fmt.Sprintf("bench-g1-%d", l), ref.G1(r, n))
			if err != nil {
				b.Fatal(err)
			}
			v := upload(b, s, ref.Fr(r, n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.MSMG1(context.Background(), bases, v, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMSMG2(b *testing.B) {
	s := stream(b)
	r := rng(b)
	d := device(b)
	for _, l := range benchLogs[:3] {
		b.Run(fmt.Sprintf("2^%d", l), func(b *testing.B) {
			n := 1 << l
			bases, err := d.LoadG2(fmt.Sprintf("bench-g2-%d", l), ref.G2(r, n))
			if err != nil {
				b.Fatal(err)
			}
			v := upload(b, s, ref.Fr(r, n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.MSMG2(context.Background(), bases, v, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
