//go:build cuda

package cuda

/*
#include "api.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

const frBytes = 32

// Stream is an ordered queue of device work owned by one worker.
type Stream struct {
	d *Device
	s *C.pl_stream
}

// NewStream creates a non-blocking stream. Its staged uploads borrow a
// pair of pinned buffers from a pool the process keeps (StagingBuffers),
// returned when the stream is closed: pinning and unpinning host memory
// for every stream synchronized the whole device at each call, stalling the
// other streams' kernels (docs/design/groth16-pipeline.md).
//
// The stream's kernels run as the device's Options say.
func (d *Device) NewStream() (*Stream, error) {
	var s *C.pl_stream
	o := d.opts.c()
	if err := check(C.pl_stream_create(C.int(d.index), &o, &s)); err != nil {
		return nil, fmt.Errorf("cuda: new stream on device %d: %w", d.index, err)
	}
	return &Stream{d: d, s: s}, nil
}

// c is o as the kernels take it (api.h's pl_options).
func (o Options) c() C.pl_options {
	accum := C.int(C.PL_ACCUM_DEFAULT)
	switch o.Accum {
	case AccumAffine:
		accum = C.PL_ACCUM_AFFINE
	case AccumXYZZ:
		accum = C.PL_ACCUM_XYZZ
	}
	return C.pl_options{
		affine_max:    C.uint64_t(o.AffineMax),
		affine_levels: C.int(o.AffineLevels),
		accum:         accum,
		sum_threads:   C.uint64_t(o.SumThreads),
		profile:       C.int(b2i(o.Profile)),
	}
}

// StagingBuffers reports the pool of pinned staging buffers behind
// Upload: how many the process has pinned (two a stream that has uploaded,
// at most, for the streams open at once) and how many of them no stream
// holds now.
func StagingBuffers() (pinned, idle int) {
	var p, i C.int
	C.pl_stage_stats(&p, &i)
	return int(p), int(i)
}

// Device returns the stream's device.
func (s *Stream) Device() *Device { return s.d }

// Sync waits for the work queued on this stream (only this stream).
func (s *Stream) Sync() error {
	if err := check(C.pl_stream_sync(s.s)); err != nil {
		return fmt.Errorf("cuda: sync stream on device %d: %w", s.d.index, err)
	}
	return nil
}

// Close waits for the stream and releases it.
func (s *Stream) Close() error {
	if s.s == nil {
		return nil
	}
	err := check(C.pl_stream_destroy(s.s))
	s.s = nil
	if err != nil {
		return fmt.Errorf("cuda: close stream on device %d: %w", s.d.index, err)
	}
	return nil
}

// Vector is a vector of one curve's Fr elements (Montgomery form) in
// device memory.
type Vector struct {
	ptr   unsafe.Pointer
	n     int
	curve Curve
}

// Len is the number of elements.
func (v *Vector) Len() int { return v.n }

// Curve is the curve whose Fr the vector holds.
func (v *Vector) Curve() Curve { return v.curve }

// Alloc returns an uninitialised vector of n BLS12-381 Fr elements
// (BLS12381Fr.Alloc), allocated stream-ordered; the error wraps
// ErrOutOfMemory when the device is full.
func (s *Stream) Alloc(n int) (*Vector, error) { return BLS12381Fr.Alloc(s, n) }

// Free releases v after the work queued so far on s (no device sync).
func (s *Stream) Free(v *Vector) error {
	if v == nil || v.ptr == nil {
		return nil
	}
	err := check(C.pl_free_async(s.s, v.ptr))
	v.ptr = nil
	if err != nil {
		return fmt.Errorf("cuda: free on device %d: %w", s.d.index, err)
	}
	return nil
}

// Upload copies BLS12-381 elements src into dst[0:len(src)] and zeroes
// the rest (BLS12381Fr.Upload).
func (s *Stream) Upload(dst *Vector, src []fr.Element, canonical bool) error {
	return BLS12381Fr.Upload(s, dst, src, canonical)
}

// UploadPinned is BLS12381Fr.UploadPinned.
func (s *Stream) UploadPinned(dst *Vector, src *Pinned, canonical bool) error {
	return BLS12381Fr.UploadPinned(s, dst, src, canonical)
}

func (s *Stream) finishUpload(dst *Vector, n int, canonical bool) error {
	if n < dst.n {
		off := unsafe.Add(dst.ptr, n*frBytes)
		if err := check(C.pl_memset_async(s.s, off, 0, C.size_t((dst.n-n)*frBytes))); err != nil {
			return fmt.Errorf("cuda: zero tail on device %d: %w", s.d.index, err)
		}
	}
	if canonical && n > 0 {
		if err := check(C.pl_fr_convert(s.s, C.int(dst.curve), dst.ptr, C.size_t(n), 1)); err != nil {
			return fmt.Errorf("cuda: to montgomery on device %d: %w", s.d.index, err)
		}
	}
	return nil
}

// Download waits for the stream and copies v into dst (Montgomery form):
// BLS12381Fr.Download.
func (s *Stream) Download(dst []fr.Element, v *Vector) error {
	return BLS12381Fr.Download(s, dst, v)
}

// PinnedOf is page-locked host memory holding elements F (a curve's
// fr.Element), the source of asynchronous uploads (Field.UploadPinned).
type PinnedOf[F any] struct {
	ptr unsafe.Pointer
	n   int
}

// Pinned is pinned memory of BLS12-381 Fr elements.
type Pinned = PinnedOf[fr.Element]

// NewPinned allocates n pinned BLS12-381 elements.
func NewPinned(n int) (*Pinned, error) { return NewPinnedOf[fr.Element](n) }

// NewPinnedOf allocates n pinned elements F (32 bytes each).
func NewPinnedOf[F any](n int) (*PinnedOf[F], error) {
	if unsafe.Sizeof(*new(F)) != frBytes {
		return nil, fmt.Errorf("cuda: pinned elements of %d bytes, want %d", unsafe.Sizeof(*new(F)), frBytes)
	}
	var p unsafe.Pointer
	if err := check(C.pl_host_alloc(&p, C.size_t(max(n, 1)*frBytes))); err != nil {
		return nil, fmt.Errorf("cuda: pinned alloc of %d scalars: %w", n, err)
	}
	return &PinnedOf[F]{ptr: p, n: n}, nil
}

// Slice is the memory as a Go slice (valid until Free).
func (p *PinnedOf[F]) Slice() []F { return unsafe.Slice((*F)(p.ptr), p.n) }

// Len is the number of elements.
func (p *PinnedOf[F]) Len() int { return p.n }

// Free releases the memory.
func (p *PinnedOf[F]) Free() error {
	if p.ptr == nil {
		return nil
	}
	err := check(C.pl_host_free(p.ptr))
	p.ptr = nil
	if err != nil {
		return fmt.Errorf("cuda: pinned free: %w", err)
	}
	return nil
}

// Event marks a point in a stream, for timing.
type Event struct{ e unsafe.Pointer }

// NewEvent creates a timing event on d.
func (d *Device) NewEvent() (*Event, error) {
	var e unsafe.Pointer
	if err := check(C.pl_event_create(C.int(d.index), &e)); err != nil {
		return nil, fmt.Errorf("cuda: new event on device %d: %w", d.index, err)
	}
	return &Event{e: e}, nil
}

// Record marks the current end of s.
func (s *Stream) Record(e *Event) error {
	if err := check(C.pl_event_record(s.s, e.e)); err != nil {
		return fmt.Errorf("cuda: record event: %w", err)
	}
	return nil
}

// Wait blocks until the event has happened.
func (e *Event) Wait() error { return check(C.pl_event_sync(e.e)) }

// Close releases the event.
func (e *Event) Close() error { return check(C.pl_event_destroy(e.e)) }

// Elapsed returns the milliseconds from a to b (both recorded and done).
func Elapsed(a, b *Event) (float32, error) {
	var ms C.float
	if err := check(C.pl_event_elapsed(&ms, a.e, b.e)); err != nil {
		return 0, fmt.Errorf("cuda: elapsed: %w", err)
	}
	return float32(ms), nil
}

// FrSquarings queues iters squarings of every element of v (in its
// curve's Fr), in place: the overlap test's load, and cudabench's measure
// of the Fr multiplication's throughput (one dependent chain a thread,
// the device full of threads).
func (s *Stream) FrSquarings(v *Vector, iters int) error {
	return check(C.pl_busy(s.s, C.int(v.curve), v.ptr, C.size_t(v.n), C.int(iters)))
}

// FpDual is FpSquarings' mode where every thread squares two elements at
// once, one with each arithmetic; modes 0-8 are the warps of every 8 that
// multiply on the FP64 pipe.
const FpDual = C.PL_FP_DUAL

// FpSquarings squares every element of x (BLS12-381's Fp) iters times,
// in place, on the device, and returns the kernel's milliseconds:
// cudabench's measure of the Fp multiplication's throughput. In modes 0-8 the first mode warps of
// every 8 multiply on the FP64 pipe (csrc/fp64.cuh), the others with the
// integer mont_mul; in FpDual every thread runs both on two elements
// (len(x) even). The results are the same in every mode.
func (s *Stream) FpSquarings(x []fp.Element, iters, mode int) (float32, error) {
	if len(x) == 0 || iters < 0 || mode < 0 || mode > FpDual || (mode == FpDual && len(x)%2 != 0) {
		return 0, fmt.Errorf("cuda: fp squarings: %d elements, %d iterations, mode %d", len(x), iters, mode)
	}
	var ms C.float
	err := check(C.pl_fp_squarings(s.s, (*C.uint64_t)(unsafe.Pointer(&x[0])), C.size_t(len(x)), C.int(iters), C.uint(mode), &ms))
	if err != nil {
		return 0, fmt.Errorf("cuda: fp squarings: %w", err)
	}
	return float32(ms), nil
}
