//go:build cuda

package groth16_test

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// TestCUDAFusedHMatchesTheGenericH computes H on fresh random inputs (a
// satisfied system and an unsatisfied one) three ways: the generic steps
// on the CPU backend (the reference), the CUDA stream's fused kernel (its
// HComputer, found through the traced decorator) and the generic steps on
// the CUDA stream (its NTTs and vector kernels). All three must agree.
func TestCUDAFusedHMatchesTheGenericH(t *testing.T) {
	gb, err := devcuda.New(devcuda.Options{})
	if errors.Is(err, device.ErrNoDevice) {
		t.Skip("no CUDA device: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Close()
	cb, _ := cpu.New(1)
	stream := func(be device.Backend) cdev.Stream {
		d, err := cdev.Of(be, 0)
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return traced.New(s, 0)
	}
	gs, cs := stream(gb), stream(cb)
	if _, ok := cdev.As[groth16.HComputer](gs); !ok {
		t.Fatal("the cuda stream has no fused ComputeH (groth16.HComputer)")
	}
	ctx := context.Background()
	for _, logn := range []int{2, 10, 16} {
		n := 1 << logn
		d := fft.NewDomain(uint64(n))
		sa, sb, sc := satisfiedABC(n, n-n/5)
		ua, ub, uc := satisfiedABC(n, n)
		ua[0].SetInt64(-1) // a·b ≠ c at 0: not a multiple of Z
		for _, in := range [][3][]fr.Element{{sa, sb, sc}, {ua, ub, uc}} {
			run := func(st cdev.Stream, h func(context.Context, cdev.Stream, device.Vector, device.Vector, device.Vector, *fft.Domain) error) []fr.Element {
				va, vb, vc := upload(t, st, in[0]), upload(t, st, in[1]), upload(t, st, in[2])
				defer st.Free(vb)
				defer st.Free(vc)
				defer st.Free(va)
				if err := h(ctx, st, va, vb, vc, d); err != nil {
					t.Fatal(err)
				}
				out := make([]fr.Element, n)
				if err := st.Download(out, va); err != nil {
					t.Fatal(err)
				}
				return out
			}
			want := run(cs, groth16.ComputeHGeneric)
			for name, got := range map[string][]fr.Element{
				"fused kernel":      run(gs, groth16.ComputeH),
				"generic on device": run(gs, groth16.ComputeHGeneric),
			} {
				for i := range want {
					if !got[i].Equal(&want[i]) {
						t.Fatalf("2^%d: %s differs from the cpu backend's generic H at %d", logn, name, i)
					}
				}
			}
		}
		t.Logf("compute h 2^%d: fused, generic on device and cpu agree", logn)
	}
}
