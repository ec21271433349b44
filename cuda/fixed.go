//go:build cuda

package cuda

/*
#include "api.h"
*/
import "C"

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/cuda/internal/points"
)

// fixedWindow is the digit width of the fixed-base kernels: 22 windows of
// 12 bits, 2048 multiples of the generator a window (4.3 MB of G1
// points, 8.6 MB of G2: they stay in the H200's 50 MB L2), 22 mixed
// additions a scalar.
const fixedWindow = 12

// fixedChunk is the most scalars one kernel call takes: 368 bytes of
// device memory a scalar for G1 (scalar, XYZZ sum, product, affine
// result), 704 for G2, so 1.5 and 3 GB at 2^22. Tests make it small.
var fixedChunk = 1 << 22

var (
	fixedTableG1 = sync.OnceValue(func() []curve.G1Affine { return points.FixedTableG1(fixedWindow) })
	fixedTableG2 = sync.OnceValue(func() []curve.G2Affine { return points.FixedTableG2(fixedWindow) })
)

// MulGeneratorG1 sets dst[i] = scalars[i]·g1 (gnark-crypto's generator,
// scalars in Montgomery form), affine, exactly as gnark-crypto's
// BatchScalarMultiplicationG1 computes them; a chunk of fixedChunk
// scalars a kernel call. It returns when dst is written.
func (s *Stream) MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error {
	if len(dst) != len(scalars) {
		return fmt.Errorf("cuda: g1 generator multiplication: %d scalars into %d points", len(scalars), len(dst))
	}
	t := fixedTableG1()
	return s.mulGenerator(ctx, "g1", unsafe.Pointer(&t[0]), len(t)*int(unsafe.Sizeof(t[0])), slicePtr(dst), int(unsafe.Sizeof(curve.G1Affine{})), scalars,
		func(table, sc unsafe.Pointer, n int, out unsafe.Pointer) C.int {
			return C.pl_fixed_g1(s.s, table, fixedWindow, sc, C.size_t(n), out)
		})
}

// MulGeneratorG2 is MulGeneratorG1 over G2.
func (s *Stream) MulGeneratorG2(ctx context.Context, dst []curve.G2Affine, scalars []fr.Element) error {
	if len(dst) != len(scalars) {
		return fmt.Errorf("cuda: g2 generator multiplication: %d scalars into %d points", len(scalars), len(dst))
	}
	t := fixedTableG2()
	return s.mulGenerator(ctx, "g2", unsafe.Pointer(&t[0]), len(t)*int(unsafe.Sizeof(t[0])), slicePtr(dst), int(unsafe.Sizeof(curve.G2Affine{})), scalars,
		func(table, sc unsafe.Pointer, n int, out unsafe.Pointer) C.int {
			return C.pl_fixed_g2(s.s, table, fixedWindow, sc, C.size_t(n), out)
		})
}

func slicePtr[P any](p []P) unsafe.Pointer {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Pointer(&p[0])
}

// mulGenerator uploads the table, then a chunk at a time the scalars,
// runs the kernel and copies the points into dst (pointSize bytes each).
func (s *Stream) mulGenerator(ctx context.Context, group string, table unsafe.Pointer, tableBytes int, dst unsafe.Pointer, pointSize int, scalars []fr.Element,
	kernel func(table, scalars unsafe.Pointer, n int, out unsafe.Pointer) C.int) (err error) {
	if len(scalars) == 0 {
		return nil
	}
	fail := func(what string, e error) error {
		return fmt.Errorf("cuda: %s generator multiplication of %d scalars on device %d: %s: %w", group, len(scalars), s.d.index, what, e)
	}
	chunk := min(len(scalars), fixedChunk)
	var dTable, dScalars, dOut unsafe.Pointer
	defer func() {
		// stream-ordered frees after the work queued; then wait for it.
		for _, p := range []unsafe.Pointer{dTable, dScalars, dOut} {
			if p != nil {
				C.pl_free_async(s.s, p)
			}
		}
		if serr := s.Sync(); err == nil && serr != nil {
			err = serr
		}
	}()
	if err := check(C.pl_malloc_async(s.s, &dTable, C.size_t(tableBytes))); err != nil {
		return fail("alloc table", err)
	}
	if err := check(C.pl_malloc_async(s.s, &dScalars, C.size_t(chunk*frBytes))); err != nil {
		return fail("alloc scalars", err)
	}
	if err := check(C.pl_malloc_async(s.s, &dOut, C.size_t(chunk*pointSize))); err != nil {
		return fail("alloc points", err)
	}
	if err := check(C.pl_h2d_staged(s.s, dTable, table, C.size_t(tableBytes))); err != nil {
		return fail("upload table", err)
	}
	for lo := 0; lo < len(scalars); lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(chunk, len(scalars)-lo)
		if err := check(C.pl_h2d_staged(s.s, dScalars, unsafe.Pointer(&scalars[lo]), C.size_t(n*frBytes))); err != nil {
			return fail("upload scalars", err)
		}
		if err := check(kernel(dTable, dScalars, n, dOut)); err != nil {
			return fail("kernel", err)
		}
		if err := check(C.pl_d2h(s.s, unsafe.Add(dst, lo*pointSize), dOut, C.size_t(n*pointSize))); err != nil {
			return fail("download points", err)
		}
	}
	return nil
}
