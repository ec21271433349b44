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

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/prooflane/prooflane/cuda/internal/points"
)

// Group is the kernels' operations over one group (G1 or G2) of one
// curve: F the curve's scalars (gnark-crypto's fr.Element), A and J the
// group's affine and Jacobian points (gnark-crypto's G1Affine and G1Jac,
// or G2's). Its values are BLS12381G1, BLS12381G2, BN254G1 and BN254G2:
// one implementation, the kernels' templates instantiated a curve. The
// Stream and Device methods named G1 and G2 (MSMG1, LoadG2, ...) are
// BLS12-381's groups' operations, kept for the callers written before
// the curve was a parameter.
type Group[F ~[4]uint64, A, J any] struct {
	curve Curve
	host  points.Group[A, J]
}

// The groups of the curves the kernels are built for.
var (
	BLS12381G1 = &Group[blsfr.Element, bls.G1Affine, bls.G1Jac]{BLS12381, points.BLS12381G1}
	BLS12381G2 = &Group[blsfr.Element, bls.G2Affine, bls.G2Jac]{BLS12381, points.BLS12381G2}
	BN254G1    = &Group[bnfr.Element, bn254.G1Affine, bn254.G1Jac]{BN254, points.BN254G1}
	BN254G2    = &Group[bnfr.Element, bn254.G2Affine, bn254.G2Jac]{BN254, points.BN254G2}
)

// The api.h ids must be Curve's values.
var (
	_ [C.PL_BLS12_381 - int(BLS12381)]struct{}
	_ [int(BLS12381) - C.PL_BLS12_381]struct{}
	_ [C.PL_BN254 - int(BN254)]struct{}
	_ [int(BN254) - C.PL_BN254]struct{}
)

// Curve is the group's curve.
func (g *Group[F, A, J]) Curve() Curve { return g.curve }

// String is the group's name, "bn254 g1" for instance.
func (g *Group[F, A, J]) String() string { return g.curve.String() + " " + g.host.Name() }

func (g *Group[F, A, J]) g2() bool { return g.host.Name() == "g2" }

// PointBytes is an affine point's size, on the host and the device.
func (g *Group[F, A, J]) PointBytes() int { return g.host.PointBytes() }

// XYZZBytes is the size of the kernels' accumulator of the group
// (MSMScratch's xyzz).
func (g *Group[F, A, J]) XYZZBytes() int { return g.host.XYZZBytes() }

// Load makes points resident on d under key; a key already loaded for
// the group returns the resident vector.
func (g *Group[F, A, J]) Load(d *Device, key string, points []A) (*Bases[A], error) {
	return g.LoadTable(d, key, points, 0)
}

// LoadTable is Load with a precomputed table for window c (c = 0: none):
// TableRows(c) copies of the points, each 2^c times the one before,
// which MSM then uses with window c (one bucket set for every window, no
// window sums to combine). It costs TableRows(c) times the points'
// memory and a few milliseconds a million points to build. A key already
// loaded returns the resident vector as it is, with or without a table.
func (g *Group[F, A, J]) LoadTable(d *Device, key string, points []A, c int) (*Bases[A], error) {
	if err := checkTable(c, len(points)); err != nil {
		return nil, fmt.Errorf("cuda: load %s %q: %w", g, key, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("cuda: load %s %q: device %d closed", g, key, d.index)
	}
	k := basesKey{curve: g.curve, group: g.host.Name(), key: key}
	if b, ok := d.bases[k]; ok {
		return b.(*Bases[A]), nil // the key's group's points are A
	}
	n, size := len(points), g.PointBytes()
	p, err := d.load(g.String()+" "+key, slicePtr(points), n*size, rowsFor(c),
		func(s *Stream, p unsafe.Pointer) C.int {
			if g.g2() {
				return C.pl_precompute_g2(s.s, C.int(g.curve), p, C.size_t(n), C.int(c))
			}
			return C.pl_precompute_g1(s.s, C.int(g.curve), p, C.size_t(n), C.int(c))
		})
	if err != nil {
		return nil, err
	}
	b := &Bases[A]{bases{key: key, ptr: p, n: n, window: c, pointBytes: size}}
	d.bases[k] = b
	return b, nil
}

// MSM returns sum_i scalars[i]*bases[i] for i < n (scalars of the
// group's curve, in Montgomery form), over the bases' precomputed table
// when they have one, as Stream.PlanMSM says.
func (g *Group[F, A, J]) MSM(ctx context.Context, s *Stream, bases *Bases[A], scalars *Vector, n int) (J, error) {
	if err := g.ofCurve("msm", scalars); err != nil {
		return g.host.Infinity(), err
	}
	p, err := s.PlanMSM(scalars, n, bases.window)
	if err != nil {
		return g.host.Infinity(), err
	}
	return g.msm(ctx, s, bases, scalars, n, p)
}

// MSMWindow is MSM with window size c over the bases alone (a table's
// first row), whether or not they have a precomputed table, and over
// every scalar.
func (g *Group[F, A, J]) MSMWindow(ctx context.Context, s *Stream, bases *Bases[A], scalars *Vector, n, c int) (J, error) {
	if err := g.ofCurve("msm", scalars); err != nil {
		return g.host.Infinity(), err
	}
	return g.msm(ctx, s, bases, scalars, n, MSMPlan{Window: c, Nonzero: n})
}

// ofCurve checks that v holds the group's curve's scalars.
func (g *Group[F, A, J]) ofCurve(what string, v *Vector) error {
	if v.curve != g.curve {
		return fmt.Errorf("cuda: %s %s of a %s vector", g, what, v.curve)
	}
	return nil
}

// cMSM is pl_msm_g1 or pl_msm_g2 of the group's curve on a stream, bases
// (device), scalars (device, Montgomery form) and out (host, sums
// windows' accumulators).
func (g *Group[F, A, J]) cMSM(s *Stream, bases, scalars unsafe.Pointer, n, c, tableN int, p MSMPlan, out []uint64) C.int {
	if g.g2() {
		return C.pl_msm_g2(s.s, C.int(g.curve), bases, scalars, C.size_t(n), 1, C.int(c), C.size_t(tableN), C.size_t(p.gathered()), C.size_t(p.units()), unsafe.Pointer(&out[0]))
	}
	return C.pl_msm_g1(s.s, C.int(g.curve), bases, scalars, C.size_t(n), 1, C.int(c), C.size_t(tableN), C.size_t(p.gathered()), C.size_t(p.units()), unsafe.Pointer(&out[0]))
}

// sums is room for n accumulators of the group.
func (g *Group[F, A, J]) sums(n int) []uint64 { return make([]uint64, n*g.XYZZBytes()/8) }

func (g *Group[F, A, J]) msm(ctx context.Context, s *Stream, bases *Bases[A], scalars *Vector, n int, p MSMPlan) (J, error) {
	var w []uint64
	err := s.msm(ctx, "msm "+g.String(), &bases.bases, scalars, n, p, func(b unsafe.Pointer, tableN int) C.int {
		w = g.sums(windowSums(p.Window, p.Table))
		return g.cMSM(s, b, scalars.ptr, n, p.Window, tableN, p, w)
	})
	if err != nil || w == nil {
		return g.host.Infinity(), err
	}
	return g.host.Combine(w, p.Window), nil
}

// cSum is pl_sum_g1 or pl_sum_g2 of the group's curve.
func (g *Group[F, A, J]) cSum(s *Stream, bases unsafe.Pointer, nbases int, idx []int32, out []uint64) C.int {
	if g.g2() {
		return C.pl_sum_g2(s.s, C.int(g.curve), bases, C.size_t(nbases), (*C.int32_t)(unsafe.Pointer(&idx[0])), C.size_t(len(idx)), unsafe.Pointer(&out[0]))
	}
	return C.pl_sum_g1(s.s, C.int(g.curve), bases, C.size_t(nbases), (*C.int32_t)(unsafe.Pointer(&idx[0])), C.size_t(len(idx)), unsafe.Pointer(&out[0]))
}

// Sum returns the sum of bases[i] for i in idx.
func (g *Group[F, A, J]) Sum(ctx context.Context, s *Stream, bases *Bases[A], idx []int32) (J, error) {
	if err := ctx.Err(); err != nil {
		return g.host.Infinity(), err
	}
	if len(idx) == 0 {
		return g.host.Infinity(), nil
	}
	r := g.sums(1)
	err := bases.use("sum "+g.String(), func(p unsafe.Pointer) error {
		return check(g.cSum(s, p, bases.n, idx, r))
	})
	if err != nil {
		if bad := checkIndices(idx, bases.n); bad != nil {
			return g.host.Infinity(), bad
		}
		return g.host.Infinity(), fmt.Errorf("cuda: sum %s of %d on device %d: %w", g, len(idx), s.d.index, err)
	}
	return g.host.Jac(r), nil
}

// MSMHost is MSM over points kept in host memory: a chunk of at most
// chunk points at a time is copied to a buffer of the stream, its MSM
// runs with the matching scalars, and the chunks' sums are added.
func (g *Group[F, A, J]) MSMHost(ctx context.Context, s *Stream, pts []A, scalars *Vector, n, chunk int) (J, error) {
	acc := g.host.Infinity()
	if err := g.ofCurve("msm", scalars); err != nil {
		return acc, err
	}
	err := s.hostMSM(ctx, "msm "+g.String(), slicePtr(pts), len(pts), g.PointBytes(), scalars, n, chunk,
		func(buf, sc unsafe.Pointer, k int) error {
			c := s.d.opts.Window(k)
			w := g.sums(TableRows(c))
			if err := check(g.cMSM(s, buf, sc, k, c, 0, MSMPlan{Window: c, Nonzero: k}, w)); err != nil {
				return err
			}
			r := g.host.Combine(w, c)
			g.host.AddAssign(&acc, &r)
			return nil
		})
	return acc, err
}

// SumHost is Sum over points kept in host memory: the indexed points
// are gathered on the host a chunk at a time, copied, and added on the
// device.
func (g *Group[F, A, J]) SumHost(ctx context.Context, s *Stream, pts []A, idx []int32, chunk int) (J, error) {
	acc := g.host.Infinity()
	err := hostSum(s, ctx, "sum "+g.String(), pts, idx, chunk, func(buf unsafe.Pointer, ident []int32) error {
		w := g.sums(1)
		if err := check(g.cSum(s, buf, len(ident), ident, w)); err != nil {
			return err
		}
		r := g.host.Jac(w)
		g.host.AddAssign(&acc, &r)
		return nil
	})
	return acc, err
}

// MulGenerator sets dst[i] = scalars[i]·g (gnark-crypto's generator of
// the group, scalars in Montgomery form), affine, exactly as
// gnark-crypto's BatchScalarMultiplicationG1 (or G2) computes them; a
// chunk of fixedChunk scalars a kernel call. It returns when dst is
// written.
func (g *Group[F, A, J]) MulGenerator(ctx context.Context, s *Stream, dst []A, scalars []F) error {
	if len(dst) != len(scalars) {
		return fmt.Errorf("cuda: %s generator multiplication: %d scalars into %d points", g, len(scalars), len(dst))
	}
	t := g.host.FixedTable(fixedWindow)
	return s.mulGenerator(ctx, g.String(), unsafe.Pointer(&t[0]), len(t)*g.PointBytes(), slicePtr(dst), g.PointBytes(), slicePtr(scalars), len(scalars),
		func(table, sc unsafe.Pointer, n int, out unsafe.Pointer) C.int {
			if g.g2() {
				return C.pl_fixed_g2(s.s, C.int(g.curve), table, fixedWindow, sc, C.size_t(n), out)
			}
			return C.pl_fixed_g1(s.s, C.int(g.curve), table, fixedWindow, sc, C.size_t(n), out)
		})
}
