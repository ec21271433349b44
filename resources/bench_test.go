// Benchmarks of Acquire+Release. Run with:
//
//	go test -run '^$' -bench BenchmarkAcquireRelease -benchmem ./resources/
package resources

import (
	"context"
	"runtime"
	"testing"
)

func BenchmarkAcquireRelease(b *testing.B) {
	decls := []Decl{{Name: "cpu_bandwidth", Capacity: 4}, {Name: "gpu.{gpu}.mem", Capacity: 1}, {Name: "gpu.{gpu}.compute", Capacity: 1}}
	cases := []struct {
		name     string
		claims   []Claim
		parallel int // goroutines in all (RunParallel), or 0 for a plain loop
	}{
		{"1 claim uncontended", []Claim{{0, 1}}, 0},
		{"3 claims uncontended", []Claim{{0, 2}, {1, 1}, {3, 1}}, 0},
		{"contended mutex 4 goroutines", []Claim{{1, 1}}, 4},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			s := newSet(b, 2, decls...)
			ctx := context.Background()
			b.ReportAllocs()
			if bc.parallel == 0 {
				for b.Loop() {
					g, err := s.Acquire(ctx, bc.claims, 0, nil)
					if err != nil {
						b.Fatal(err)
					}
					g.Release()
				}
				return
			}
			// RunParallel starts parallelism × GOMAXPROCS goroutines: exactly
			// bc.parallel when GOMAXPROCS divides it (1, 2, 4 here).
			b.SetParallelism(max(1, bc.parallel/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					g, err := s.Acquire(ctx, bc.claims, 0, nil)
					if err != nil {
						b.Error(err)
						return
					}
					g.Release()
				}
			})
		})
	}
}
