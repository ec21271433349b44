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
)

// MSMG1Host is MSMG1 over points kept in host memory
// (BLS12381G1.MSMHost): a chunk of at most chunk points at a time is
// copied to a buffer of the stream, its MSM runs with the matching
// scalars, and the chunks' sums are added.
func (s *Stream) MSMG1Host(ctx context.Context, pts []curve.G1Affine, scalars *Vector, n, chunk int) (curve.G1Jac, error) {
	return BLS12381G1.MSMHost(ctx, s, pts, scalars, n, chunk)
}

// MSMG2Host is MSMG1Host over G2.
func (s *Stream) MSMG2Host(ctx context.Context, pts []curve.G2Affine, scalars *Vector, n, chunk int) (curve.G2Jac, error) {
	return BLS12381G2.MSMHost(ctx, s, pts, scalars, n, chunk)
}

// hostMSM checks an MSM of n terms over npts host points at src
// (pointSize bytes each) and runs it chunk by chunk: each chunk's points
// are copied into one device buffer of the stream, then msm runs on the
// buffer, the chunk's scalars and their count.
func (s *Stream) hostMSM(ctx context.Context, what string, src unsafe.Pointer, npts, pointSize int, scalars *Vector, n, chunk int,
	msm func(buf, scalars unsafe.Pointer, k int) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n < 0 || n > npts || n > scalars.n || chunk <= 0 {
		return fmt.Errorf("cuda: %s of %d over %d host bases and %d scalars in chunks of %d", what, n, npts, scalars.n, chunk)
	}
	return s.streamPoints(ctx, what, src, pointSize, n, chunk, func(buf unsafe.Pointer, off, k int) error {
		return msm(buf, unsafe.Add(scalars.ptr, off*frBytes), k)
	})
}

// SumG1Host is SumG1 over points kept in host memory
// (BLS12381G1.SumHost): the indexed points are gathered on the host a
// chunk at a time, copied, and added on the device.
func (s *Stream) SumG1Host(ctx context.Context, pts []curve.G1Affine, idx []int32, chunk int) (curve.G1Jac, error) {
	return BLS12381G1.SumHost(ctx, s, pts, idx, chunk)
}

// SumG2Host is SumG1Host over G2.
func (s *Stream) SumG2Host(ctx context.Context, pts []curve.G2Affine, idx []int32, chunk int) (curve.G2Jac, error) {
	return BLS12381G2.SumHost(ctx, s, pts, idx, chunk)
}

// hostSum gathers pts[idx[i]] a chunk of indices at a time into a host
// buffer, streams it to the device, and calls sum with the device copy
// and the indices 0..k-1 of its points.
func hostSum[P any](s *Stream, ctx context.Context, what string, pts []P, idx []int32, chunk int,
	sum func(buf unsafe.Pointer, ident []int32) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if chunk <= 0 {
		return fmt.Errorf("cuda: %s in chunks of %d", what, chunk)
	}
	if err := checkIndices(idx, len(pts)); err != nil {
		return err
	}
	if len(idx) == 0 {
		return nil
	}
	k := min(chunk, len(idx))
	gathered, ident := make([]P, k), make([]int32, k)
	for i := range ident {
		ident[i] = int32(i)
	}
	size := int(unsafe.Sizeof(gathered[0]))
	for lo := 0; lo < len(idx); lo += k {
		part := idx[lo:min(lo+k, len(idx))]
		for i, j := range part {
			gathered[i] = pts[j]
		}
		err := s.streamPoints(ctx, what, unsafe.Pointer(&gathered[0]), size, len(part), len(part), func(buf unsafe.Pointer, _, m int) error {
			return sum(buf, ident[:m])
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// streamPoints copies n points of pointSize bytes from host memory at src
// into one device buffer of at most chunk points, a chunk at a time, and
// calls run with the buffer and the chunk's offset and length after each
// copy (run must wait for its work: the next copy overwrites the buffer).
// The buffer comes from the stream's pool and goes back to it.
func (s *Stream) streamPoints(ctx context.Context, what string, src unsafe.Pointer, pointSize, n, chunk int, run func(buf unsafe.Pointer, off, k int) error) error {
	if n == 0 {
		return nil
	}
	fail := func(step string, err error) error {
		return fmt.Errorf("cuda: %s of %d host bases in chunks of %d on device %d: %s: %w", what, n, chunk, s.d.index, step, err)
	}
	var buf unsafe.Pointer
	if err := check(C.pl_malloc_async(s.s, &buf, C.size_t(min(chunk, n)*pointSize))); err != nil {
		return fail("alloc chunk", err)
	}
	defer C.pl_free_async(s.s, buf)
	for off := 0; off < n; off += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(chunk, n-off)
		if err := check(C.pl_h2d_staged(s.s, buf, unsafe.Add(src, off*pointSize), C.size_t(k*pointSize))); err != nil {
			return fail("copy chunk", err)
		}
		if err := run(buf, off, k); err != nil {
			return fail(fmt.Sprintf("chunk at %d", off), err)
		}
	}
	return nil
}
