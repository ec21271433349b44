package bls12381

import (
	"runtime"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// SumG1Affine returns the sum of points[i] for i in indices, split over the
// machine's cores. It is the CPU batch addition behind SumG1, exported for
// stages that add G2 or G1 ones on the host.
func SumG1Affine(points []curve.G1Affine, indices []int32) curve.G1Jac {
	parts := make([]curve.G1Jac, chunks(len(indices)))
	parallelizeChunks(len(indices), len(parts), func(k, lo, hi int) {
		for _, i := range indices[lo:hi] {
			parts[k].AddMixed(&points[i])
		}
	})
	var res curve.G1Jac
	for k := range parts {
		res.AddAssign(&parts[k])
	}
	return res
}

// SumG2Affine is SumG1Affine over G2.
func SumG2Affine(points []curve.G2Affine, indices []int32) curve.G2Jac {
	parts := make([]curve.G2Jac, chunks(len(indices)))
	parallelizeChunks(len(indices), len(parts), func(k, lo, hi int) {
		for _, i := range indices[lo:hi] {
			parts[k].AddMixed(&points[i])
		}
	})
	var res curve.G2Jac
	for k := range parts {
		res.AddAssign(&parts[k])
	}
	return res
}

// minChunk keeps goroutines from costing more than the additions they do.
const minChunk = 1024

func chunks(n int) int {
	k := runtime.NumCPU()
	if m := (n + minChunk - 1) / minChunk; m < k {
		k = m
	}
	if k < 1 {
		k = 1
	}
	return k
}

// parallelizeChunks runs work(k, lo, hi) for k chunks covering [0, n).
func parallelizeChunks(n, k int, work func(k, lo, hi int)) {
	if k <= 1 {
		work(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	size := (n + k - 1) / k
	for c := 0; c < k; c++ {
		lo, hi := c*size, min((c+1)*size, n)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(c, lo, hi)
		}()
	}
	wg.Wait()
}

func parallelize(n int, work func(lo, hi int)) {
	parallelizeChunks(n, chunks(n), func(_, lo, hi int) { work(lo, hi) })
}
