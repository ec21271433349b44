package points

import (
	"math/big"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// FixedTableG1 returns the table of the G1 generator's multiples that the
// fixed-base kernels (csrc/fixed.cuh) read for c-bit signed digits:
// entry w·2^(c-1) + m - 1 is m·2^(c·w)·g1, for w < ceil(256/c) and
// 1 <= m <= 2^(c-1). Computed with gnark-crypto, one goroutine a window.
func FixedTableG1(c int) []curve.G1Affine {
	_, _, g, _ := curve.Generators()
	return fixedTable(c, func(dst []curve.G1Affine, shift uint) {
		var base, acc curve.G1Jac
		base.FromAffine(&g)
		base.ScalarMultiplication(&base, new(big.Int).Lsh(big.NewInt(1), shift))
		jac := make([]curve.G1Jac, len(dst))
		acc = base
		for m := range jac {
			jac[m] = acc
			acc.AddAssign(&base)
		}
		copy(dst, curve.BatchJacobianToAffineG1(jac))
	})
}

// FixedTableG2 is FixedTableG1 for the G2 generator.
func FixedTableG2(c int) []curve.G2Affine {
	_, _, _, g := curve.Generators()
	return fixedTable(c, func(dst []curve.G2Affine, shift uint) {
		var base, acc curve.G2Jac
		base.FromAffine(&g)
		base.ScalarMultiplication(&base, new(big.Int).Lsh(big.NewInt(1), shift))
		jac := make([]curve.G2Jac, len(dst))
		acc = base
		for m := range jac {
			jac[m] = acc
			acc.AddAssign(&base)
		}
		for m := range jac {
			dst[m].FromJacobian(&jac[m])
		}
	})
}

func fixedTable[P any](c int, window func(dst []P, shift uint)) []P {
	windows, half := (256+c-1)/c, 1<<(c-1)
	t := make([]P, windows*half)
	var wg sync.WaitGroup
	for w := range windows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			window(t[w*half:(w+1)*half], uint(c*w))
		}()
	}
	wg.Wait()
	return t
}
