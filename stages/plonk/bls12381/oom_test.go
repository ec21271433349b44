package plonk_test

import (
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"sync"
	"testing"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
)

// oomBackend is the CPU backend whose streams refuse the first fails
// allocations of at least big scalars with device.ErrOutOfMemory, and
// which counts the vectors allocated and not freed.
type oomBackend struct {
	device.Backend
	big int

	mu    sync.Mutex
	fails int
	live  int
	oom   int
}

type oomDevice struct {
	cdev.Device
	b *oomBackend
}

type oomStream struct {
	cdev.Stream
	b *oomBackend
}

func (b *oomBackend) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	if err != nil {
		return nil, err
	}
	return oomDevice{d, b}, nil
}

func (d oomDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	if err != nil {
		return nil, err
	}
	return &oomStream{s, d.b}, nil
}

func (s *oomStream) Alloc(n int) (device.Vector, error) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if n >= s.b.big && s.b.fails > 0 {
		s.b.fails--
		s.b.oom++
		return nil, fmt.Errorf("test: alloc %d scalars: %w", n, device.ErrOutOfMemory)
	}
	v, err := s.Stream.Alloc(n)
	if err == nil {
		s.b.live++
	}
	return v, err
}

func (s *oomStream) Free(v device.Vector) {
	s.b.mu.Lock()
	s.b.live--
	s.b.mu.Unlock()
	s.Stream.Free(v)
}

// Out of device memory in the quotient's vectors (of 4n) is retried by
// the pipeline's retry:, every vector freed, and every proof verifies.
func TestOutOfMemoryIsRetriedAndEveryProofVerifies(t *testing.T) {
	kd := keyOf(t, "chain", 200)
	for _, pipeline := range []string{"plonk", "plonk-single-lock"} {
		t.Run(pipeline, func(t *testing.T) {
			ws := witnesses(t, kd.inst, 2, 17, -1)
			job, err := plonk.NewJob(kd.key, ws)
			if err != nil {
				t.Fatal(err)
			}
			inner, err := cpu.New(1)
			if err != nil {
				t.Fatal(err)
			}
			be := &oomBackend{Backend: inner, big: 4 * kd.key.DomainSize(), fails: 3}
			proofs, err := proveOn(t, pipeline, job, be)
			if err != nil {
				t.Fatal(err)
			}
			for p, pr := range proofs {
				if err := verify(t, kd.key, ws[p], pr); err != nil {
					t.Errorf("partition %d: %v", p, err)
				}
			}
			if be.oom != 3 || be.live != 0 {
				t.Errorf("%d allocations refused (want 3), %d vectors not freed", be.oom, be.live)
			}
		})
	}
}
