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

// MulGeneratorG1 sets dst[i] = scalars[i]·g1 (gnark-crypto's BLS12-381
// generator, scalars in Montgomery form), affine, exactly as
// gnark-crypto's BatchScalarMultiplicationG1 computes them
// (BLS12381G1.MulGenerator). It returns when dst is written.
func (s *Stream) MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error {
	return BLS12381G1.MulGenerator(ctx, s, dst, scalars)
}

// MulGeneratorG2 is MulGeneratorG1 over G2.
func (s *Stream) MulGeneratorG2(ctx context.Context, dst []curve.G2Affine, scalars []fr.Element) error {
	return BLS12381G2.MulGenerator(ctx, s, dst, scalars)
}

func slicePtr[P any](p []P) unsafe.Pointer {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Pointer(&p[0])
}

// mulGenerator uploads the table, then a chunk at a time the count
// scalars at scalars (32 bytes each), runs the kernel and copies the
// points into dst (pointSize bytes each).
func (s *Stream) mulGenerator(ctx context.Context, group string, table unsafe.Pointer, tableBytes int, dst unsafe.Pointer, pointSize int, scalars unsafe.Pointer, count int,
	kernel func(table, scalars unsafe.Pointer, n int, out unsafe.Pointer) C.int) (err error) {
	if count == 0 {
		return nil
	}
	fail := func(what string, e error) error {
		return fmt.Errorf("cuda: %s generator multiplication of %d scalars on device %d: %s: %w", group, count, s.d.index, what, e)
	}
	chunk := min(count, fixedChunk)
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
	for lo := 0; lo < count; lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(chunk, count-lo)
		if err := check(C.pl_h2d_staged(s.s, dScalars, unsafe.Add(scalars, lo*frBytes), C.size_t(n*frBytes))); err != nil {
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
