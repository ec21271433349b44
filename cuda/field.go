//go:build cuda

package cuda

/*
#include "api.h"
*/
import "C"

import (
	"context"
	"fmt"
	"math/bits"
	"unsafe"

	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	blsfft "github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bnfft "github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"

	"github.com/prooflane/prooflane/cuda/internal/points"
)

// Field is the kernels' operations on vectors of one curve's scalar
// field: F its elements (gnark-crypto's fr.Element), D its fft.Domain.
// Its values are BLS12381Fr and BN254Fr: one implementation, the
// kernels' templates instantiated a curve. A Vector belongs to the curve
// whose Field allocated it (Stream.Alloc: BLS12-381), and every operation
// refuses another curve's. The Stream methods that take fr.Element or
// fft.Domain (Upload, FFT, Scale, ...) are BLS12-381's.
type Field[F ~[4]uint64, D any] struct {
	curve Curve
	host  points.Scalars[F, D]
}

// The scalar fields of the curves the kernels are built for.
var (
	BLS12381Fr = &Field[blsfr.Element, blsfft.Domain]{BLS12381, points.BLS12381Fr}
	BN254Fr    = &Field[bnfr.Element, bnfft.Domain]{BN254, points.BN254Fr}
)

// Curve is the field's curve.
func (f *Field[F, D]) Curve() Curve { return f.curve }

// ofCurve checks that every vector holds the field's elements.
func (f *Field[F, D]) ofCurve(what string, vs ...*Vector) error {
	for _, v := range vs {
		if v.curve != f.curve {
			return fmt.Errorf("cuda: %s %s of a %s vector", f.curve, what, v.curve)
		}
	}
	return nil
}

// Alloc returns an uninitialised vector of n elements of the field,
// allocated stream-ordered; the error wraps ErrOutOfMemory when the
// device is full.
func (f *Field[F, D]) Alloc(s *Stream, n int) (*Vector, error) {
	var p unsafe.Pointer
	if err := check(C.pl_malloc_async(s.s, &p, C.size_t(max(n, 1)*frBytes))); err != nil {
		return nil, fmt.Errorf("cuda: alloc %d scalars on device %d: %w", n, s.d.index, err)
	}
	return &Vector{ptr: p, n: n, curve: f.curve}, nil
}

// Upload copies src into dst[0:len(src)] and zeroes the rest. src is read
// before Upload returns (it goes through the stream's pinned staging
// buffers). canonical says src holds plain integers, which the device
// converts to Montgomery form.
func (f *Field[F, D]) Upload(s *Stream, dst *Vector, src []F, canonical bool) error {
	if err := f.ofCurve("upload", dst); err != nil {
		return err
	}
	if len(src) > dst.n {
		return fmt.Errorf("cuda: upload %d scalars into %d", len(src), dst.n)
	}
	if len(src) > 0 {
		if err := check(C.pl_h2d_staged(s.s, dst.ptr, unsafe.Pointer(&src[0]), C.size_t(len(src)*frBytes))); err != nil {
			return fmt.Errorf("cuda: upload on device %d: %w", s.d.index, err)
		}
	}
	return s.finishUpload(dst, len(src), canonical)
}

// UploadPinned queues the copy of src (pinned host memory) into
// dst[0:src.Len()] and zeroes the rest; it returns at once, src must stay
// untouched until the stream has run the copy (Sync or a later result).
func (f *Field[F, D]) UploadPinned(s *Stream, dst *Vector, src *PinnedOf[F], canonical bool) error {
	if err := f.ofCurve("upload", dst); err != nil {
		return err
	}
	if src.n > dst.n {
		return fmt.Errorf("cuda: upload %d scalars into %d", src.n, dst.n)
	}
	if src.n > 0 {
		if err := check(C.pl_h2d_pinned(s.s, dst.ptr, src.ptr, C.size_t(src.n*frBytes))); err != nil {
			return fmt.Errorf("cuda: upload pinned on device %d: %w", s.d.index, err)
		}
	}
	return s.finishUpload(dst, src.n, canonical)
}

// Download waits for the stream and copies v into dst (Montgomery form).
func (f *Field[F, D]) Download(s *Stream, dst []F, v *Vector) error {
	if err := f.ofCurve("download", v); err != nil {
		return err
	}
	n := min(len(dst), v.n)
	if n == 0 {
		return s.Sync()
	}
	if err := check(C.pl_d2h(s.s, unsafe.Pointer(&dst[0]), v.ptr, C.size_t(n*frBytes))); err != nil {
		return fmt.Errorf("cuda: download on device %d: %w", s.d.index, err)
	}
	return nil
}

// domain is d as the kernels take it (pl_domain), checked against the
// vectors' lengths.
func (f *Field[F, D]) domain(d *D, vecs ...*Vector) (C.pl_domain, error) {
	var cd C.pl_domain
	w := f.host.DomainWords(d)
	n := f.host.Cardinality(d)
	if n == 0 || n&(n-1) != 0 {
		return cd, fmt.Errorf("cuda: domain size %d is not a power of two", n)
	}
	for _, v := range vecs {
		if uint64(v.n) < n {
			return cd, fmt.Errorf("cuda: vector of %d scalars for a domain of %d", v.n, n)
		}
	}
	cd.logn = C.int(bits.TrailingZeros64(n))
	dst := []*[4]C.uint64_t{&cd.omega, &cd.omega_inv, &cd.g, &cd.g_inv, &cd.n_inv, &cd.den}
	for i, p := range dst {
		for j := 0; j < 4; j++ {
			p[j] = C.uint64_t(w[i][j])
		}
	}
	return cd, nil
}

// FFT is gnark's domain.FFT(v, decimation, [OnCoset]) on the device: DIF
// takes natural order and leaves bit-reversed order, DIT the reverse.
func (f *Field[F, D]) FFT(s *Stream, v *Vector, d *D, dif, coset bool) error {
	return f.ntt(s, v, d, false, dif, coset)
}

// FFTInverse is gnark's domain.FFTInverse(v, decimation, [OnCoset]).
func (f *Field[F, D]) FFTInverse(s *Stream, v *Vector, d *D, dif, coset bool) error {
	return f.ntt(s, v, d, true, dif, coset)
}

func (f *Field[F, D]) ntt(s *Stream, v *Vector, d *D, inverse, dif, coset bool) error {
	if err := f.ofCurve("ntt", v); err != nil {
		return err
	}
	cd, err := f.domain(d, v)
	if err != nil {
		return err
	}
	if err := check(C.pl_ntt(s.s, C.int(f.curve), &cd, v.ptr, b2i(inverse), b2i(dif), b2i(coset))); err != nil {
		return fmt.Errorf("cuda: %s ntt of 2^%d on device %d: %w", f.curve, cd.logn, s.d.index, err)
	}
	return nil
}

// ComputeH runs gnark's Groth16 computeH on a, b, c (domain cardinality
// each, zero-padded): a receives H's coefficients in bit-reversed order,
// b and c are clobbered. Queued only; results are read by Download. It
// is the package's one family-specific kernel: Groth16's H step fused
// (seven NTTs and the element-wise steps between them in one call).
func (f *Field[F, D]) ComputeH(ctx context.Context, s *Stream, a, b, c *Vector, d *D) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.ofCurve("compute h", a, b, c); err != nil {
		return err
	}
	cd, err := f.domain(d, a, b, c)
	if err != nil {
		return err
	}
	if err := check(C.pl_compute_h(s.s, C.int(f.curve), &cd, a.ptr, b.ptr, c.ptr)); err != nil {
		return fmt.Errorf("cuda: %s compute h of 2^%d on device %d: %w", f.curve, cd.logn, s.d.index, err)
	}
	return nil
}

// Scale sets dst[i] = a[i] * c (c in Montgomery form); queued only.
func (f *Field[F, D]) Scale(s *Stream, dst, a *Vector, c F) error {
	return f.vecConst(s, C.PL_VEC_MUL, "scale", dst, a, c)
}

// AddScalar sets dst[i] = a[i] + c (c in Montgomery form); queued only.
func (f *Field[F, D]) AddScalar(s *Stream, dst, a *Vector, c F) error {
	return f.vecConst(s, C.PL_VEC_ADD, "add scalar", dst, a, c)
}

func (f *Field[F, D]) vecConst(s *Stream, op C.int, what string, dst, a *Vector, c F) error {
	if err := f.ofCurve(what, dst, a); err != nil {
		return err
	}
	if err := sameLen(what, dst, a); err != nil {
		return err
	}
	// c goes by value: a pointer would move it to the heap on every call.
	var k C.pl_fr
	for i, w := range [4]uint64(c) {
		k.v[i] = C.uint64_t(w)
	}
	if err := check(C.pl_fr_vec_const(s.s, C.int(f.curve), op, dst.ptr, a.ptr, k, C.size_t(dst.n))); err != nil {
		return fmt.Errorf("cuda: %s of %d on device %d: %w", what, dst.n, s.d.index, err)
	}
	return nil
}
