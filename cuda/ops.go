//go:build cuda

package cuda

/*
#include "api.h"
*/
import "C"

import (
	"context"
	"fmt"
	"unsafe"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// FFT is gnark's domain.FFT(v, decimation, [OnCoset]) on the device
// over BLS12-381's Fr (BLS12381Fr.FFT): DIF takes natural order and
// leaves bit-reversed order, DIT the reverse.
func (s *Stream) FFT(v *Vector, d *fft.Domain, dif, coset bool) error {
	return BLS12381Fr.FFT(s, v, d, dif, coset)
}

// FFTInverse is gnark's domain.FFTInverse(v, decimation, [OnCoset]).
func (s *Stream) FFTInverse(v *Vector, d *fft.Domain, dif, coset bool) error {
	return BLS12381Fr.FFTInverse(s, v, d, dif, coset)
}

// BitReverse permutes the first 2^logn elements of v into bit-reversed order.
func (s *Stream) BitReverse(v *Vector, logn int) error {
	if 1<<logn > v.n {
		return fmt.Errorf("cuda: bit reverse 2^%d of %d scalars", logn, v.n)
	}
	if err := check(C.pl_bitrev(s.s, v.ptr, C.int(logn))); err != nil {
		return fmt.Errorf("cuda: bit reverse on device %d: %w", s.d.index, err)
	}
	return nil
}

// ComputeH runs gnark's Groth16 computeH on a, b, c over BLS12-381's Fr
// (BLS12381Fr.ComputeH): a receives H's coefficients in bit-reversed
// order, b and c are clobbered. Queued only; results are read by
// Download. It is the package's one family-specific kernel: Groth16's H
// step fused (seven NTTs and the element-wise steps between them in one
// call), which device/cuda offers as the optional capability
// stages/groth16.HComputer.
func (s *Stream) ComputeH(ctx context.Context, a, b, c *Vector, d *fft.Domain) error {
	return BLS12381Fr.ComputeH(ctx, s, a, b, c, d)
}

// Mul sets dst[i] = a[i] * b[i] in the vectors' curve's Fr; queued
// only. dst may be a or b; vectors of two curves are refused.
func (s *Stream) Mul(dst, a, b *Vector) error { return s.vec(C.PL_VEC_MUL, "mul", dst, a, b) }

// Add sets dst[i] = a[i] + b[i]; queued only.
func (s *Stream) Add(dst, a, b *Vector) error { return s.vec(C.PL_VEC_ADD, "add", dst, a, b) }

// Sub sets dst[i] = a[i] - b[i]; queued only.
func (s *Stream) Sub(dst, a, b *Vector) error { return s.vec(C.PL_VEC_SUB, "sub", dst, a, b) }

// Scale sets dst[i] = a[i] * c (c in Montgomery form) over BLS12-381's
// Fr (BLS12381Fr.Scale); queued only.
func (s *Stream) Scale(dst, a *Vector, c fr.Element) error { return BLS12381Fr.Scale(s, dst, a, c) }

// AddScalar sets dst[i] = a[i] + c (c in Montgomery form) over
// BLS12-381's Fr (BLS12381Fr.AddScalar); queued only.
func (s *Stream) AddScalar(dst, a *Vector, c fr.Element) error {
	return BLS12381Fr.AddScalar(s, dst, a, c)
}

func sameLen(what string, dst *Vector, vs ...*Vector) error {
	for _, v := range vs {
		if v.n != dst.n {
			return fmt.Errorf("cuda: %s of vectors of %d and %d scalars", what, dst.n, v.n)
		}
	}
	return nil
}

func (s *Stream) vec(op C.int, what string, dst, a, b *Vector) error {
	if err := sameLen(what, dst, a, b); err != nil {
		return err
	}
	if a.curve != dst.curve || b.curve != dst.curve {
		return fmt.Errorf("cuda: %s of vectors of %s, %s and %s", what, dst.curve, a.curve, b.curve)
	}
	if err := check(C.pl_fr_vec(s.s, C.int(dst.curve), op, dst.ptr, a.ptr, b.ptr, C.size_t(dst.n))); err != nil {
		return fmt.Errorf("cuda: %s of %d on device %d: %w", what, dst.n, s.d.index, err)
	}
	return nil
}

// MSMG1 returns sum_i scalars[i]*bases[i] for i < n over BLS12-381's G1
// (BLS12381G1.MSM: scalars in Montgomery form, over the bases'
// precomputed table when they have one, as PlanMSM says).
func (s *Stream) MSMG1(ctx context.Context, bases *G1Bases, scalars *Vector, n int) (curve.G1Jac, error) {
	return BLS12381G1.MSM(ctx, s, bases, scalars, n)
}

// MSMG1Window is MSMG1 with window size c over the bases alone (a table's
// first row), whether or not they have a precomputed table, and over
// every scalar (BLS12381G1.MSMWindow).
func (s *Stream) MSMG1Window(ctx context.Context, bases *G1Bases, scalars *Vector, n, c int) (curve.G1Jac, error) {
	return BLS12381G1.MSMWindow(ctx, s, bases, scalars, n, c)
}

// MSMG2 is MSMG1 over G2.
func (s *Stream) MSMG2(ctx context.Context, bases *G2Bases, scalars *Vector, n int) (curve.G2Jac, error) {
	return BLS12381G2.MSM(ctx, s, bases, scalars, n)
}

// MSMG2Window is MSMG1Window over G2.
func (s *Stream) MSMG2Window(ctx context.Context, bases *G2Bases, scalars *Vector, n, c int) (curve.G2Jac, error) {
	return BLS12381G2.MSMWindow(ctx, s, bases, scalars, n, c)
}

// MSMPlan is how Group.MSM (MSMG1, MSMG2) runs an MSM (PlanMSM).
type MSMPlan struct {
	// Window is the window size: the table's over a table, else the
	// device's Options.Window of the scalars' count, of the others'
	// (below) when Sparse.
	Window int
	// Table: the MSM runs over the bases' precomputed table.
	Table bool
	// Nonzero is how many of the n scalars are not zero (n when they
	// were not counted), and Units how many of those are 1 or -1.
	Nonzero, Units int
	// Sparse: the MSM gathers its scalars' indices on the device first,
	// sums the units' points apart (with their signs), and runs over the
	// other nonzero scalars' points alone.
	Sparse bool
}

// gathered and units are pl_msm_*'s nnz and units arguments: the counts
// when the MSM gathers, else 0.
func (p MSMPlan) gathered() int {
	if p.Sparse {
		return p.Nonzero
	}
	return 0
}

func (p MSMPlan) units() int {
	if p.Sparse {
		return p.Units
	}
	return 0
}

// countFrom is the fewest scalars PlanMSM counts: counting is a pass
// over the scalars and a wait for the stream.
const countFrom = 1 << 16

// PlanMSM is how an MSM of the first n scalars runs, over bases whose
// table has window table (0: plain bases). A zero scalar adds nothing,
// and 1 or -1 adds one point, yet in the MSM each costs its digits' sort
// and, in a wide window, buckets to reduce. sha256's wires are 68% zeros,
// 30% ones and 1% minus ones (its ch products e·(f-g)); a 2^26 MSM over
// its K took 26-32 ms at c = 20 with the ones summed apart on the host,
// whose index lists, checked and uploaded, cost another ~30 ms a vector
// (docs/scale.md). So from countFrom scalars the zeros and units are
// counted, and an MSM of which at most half the scalars are neither runs
// Sparse, at the window of the others' count.
func (s *Stream) PlanMSM(scalars *Vector, n, table int) (MSMPlan, error) {
	p := MSMPlan{Window: table, Table: table != 0, Nonzero: n}
	if n >= countFrom {
		nz, units, err := s.Count(scalars, n)
		if err != nil {
			return MSMPlan{}, err
		}
		p.Nonzero, p.Units, p.Sparse = nz, units, nz-units <= n/2
	}
	if !p.Table {
		p.Window = s.d.opts.Window(n)
		if p.Sparse {
			p.Window = s.d.opts.Window(p.Nonzero - p.Units)
		}
	}
	return p, nil
}

// Count is how many of the vector's first n elements (Montgomery form,
// its curve's Fr) are not zero, and how many of those are 1 or -1; it
// waits for the stream.
func (s *Stream) Count(v *Vector, n int) (nonzero, units int, err error) {
	if n < 0 || n > v.n {
		return 0, 0, fmt.Errorf("cuda: count of %d elements of a vector of %d", n, v.n)
	}
	var nz, u C.uint64_t
	if err := check(C.pl_fr_count(s.s, C.int(v.curve), v.ptr, C.size_t(n), 1, &nz, &u)); err != nil {
		return 0, 0, fmt.Errorf("cuda: count of %d elements on device %d: %w", n, s.d.index, err)
	}
	return int(nz), int(u), nil
}

// windowSums is the sums an MSM returns: one a window, or one in all over
// a precomputed table.
func windowSums(c int, table bool) int {
	if table {
		return 1
	}
	return TableRows(c)
}

// msm checks an MSM's arguments and runs kernel on the bases' device
// pointer, with the table's row length when it runs over the table (0
// otherwise); kernel is not called when n is 0 or no scalar is nonzero.
func (s *Stream) msm(ctx context.Context, what string, b *bases, scalars *Vector, n int, p MSMPlan, kernel func(p unsafe.Pointer, tableN int) C.int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n > b.n || n > scalars.n {
		return fmt.Errorf("cuda: %s of %d with %d bases and %d scalars", what, n, b.n, scalars.n)
	}
	if c := p.Window; c < 4 || c > 24 {
		return fmt.Errorf("cuda: %s of %d: window %d is not in [4, 24]", what, n, c)
	}
	if n == 0 || p.Nonzero == 0 {
		return nil
	}
	tableN := 0
	if p.Table {
		tableN = b.n
	}
	if err := b.use(what, func(ptr unsafe.Pointer) error { return check(kernel(ptr, tableN)) }); err != nil {
		return fmt.Errorf("cuda: %s of %d on device %d: %w", what, n, s.d.index, err)
	}
	return nil
}

// checkIndices names the first index of idx out of [0, n), for the
// message of a sum the device refused: the device checks them as it
// reads them, which a pass here took as long as the sum itself.
func checkIndices(idx []int32, n int) error {
	for _, i := range idx {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("cuda: base index %d out of range [0, %d)", i, n)
		}
	}
	return nil
}

// SumG1 returns the sum of bases[i] for i in idx (BLS12381G1.Sum).
func (s *Stream) SumG1(ctx context.Context, bases *G1Bases, idx []int32) (curve.G1Jac, error) {
	return BLS12381G1.Sum(ctx, s, bases, idx)
}

// SumG2 is SumG1 over G2.
func (s *Stream) SumG2(ctx context.Context, bases *G2Bases, idx []int32) (curve.G2Jac, error) {
	return BLS12381G2.Sum(ctx, s, bases, idx)
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
