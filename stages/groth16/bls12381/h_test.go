package groth16_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	traced "github.com/prooflane/prooflane/device/traced/bls12381"
	"github.com/prooflane/prooflane/internal/ref"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// satisfiedABC returns a, b, c with a·b = c on m < n points, zero-padded to
// n: the evaluations of a satisfied constraint system, whose A·B − C is a
// multiple of Z = x^n − 1.
func satisfiedABC(n, m int) (a, b, c []fr.Element) {
	a, b, c = make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	for i := 0; i < m; i++ {
		a[i].MustSetRandom()
		b[i].MustSetRandom()
		c[i].Mul(&a[i], &b[i])
	}
	return a, b, c
}

// eval returns the polynomial with coefficients coef (natural order) at z.
func eval(coef []fr.Element, z *fr.Element) fr.Element {
	var r fr.Element
	for i := len(coef) - 1; i >= 0; i-- {
		r.Mul(&r, z).Add(&r, &coef[i])
	}
	return r
}

// interpolate returns the coefficients of the polynomial taking values x on
// the domain.
func interpolate(x []fr.Element, d *fft.Domain) []fr.Element {
	p := append([]fr.Element(nil), x...)
	d.FFTInverse(p, fft.DIF)
	fft.BitReverse(p)
	return p
}

// checkH checks h (ComputeH's output, bit-reversed) against the identity
// H·Z = A·B − C at a random point, and that H's degree is below n − 1 (the
// MSM of Krs uses n − 1 terms).
func checkH(t *testing.T, h, a, b, c []fr.Element, d *fft.Domain) {
	t.Helper()
	n := len(h)
	coef := append([]fr.Element(nil), h...)
	fft.BitReverse(coef)
	if !coef[n-1].IsZero() {
		t.Fatalf("H has degree n-1 = %d", n-1)
	}
	var z, zn, one fr.Element
	z.MustSetRandom()
	one.SetOne()
	zn.Exp(z, big.NewInt(int64(n))).Sub(&zn, &one)
	ha := eval(coef, &z)
	lhs := *ha.Mul(&ha, &zn)
	pa, pb, pc := eval(interpolate(a, d), &z), eval(interpolate(b, d), &z), eval(interpolate(c, d), &z)
	var rhs fr.Element
	rhs.Mul(&pa, &pb).Sub(&rhs, &pc)
	if !lhs.Equal(&rhs) {
		t.Fatal("H·Z differs from A·B − C at a random point")
	}
}

func upload(t *testing.T, s cdev.Stream, x []fr.Element) device.Vector {
	t.Helper()
	v, err := s.Alloc(len(x))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Upload(v, x, device.FormMontgomery); err != nil {
		t.Fatal(err)
	}
	return v
}

// fusedH is a stream with the HComputer capability; it counts its calls
// and computes with the generic steps on the stream it embeds.
type fusedH struct {
	cdev.Stream
	calls int
}

func (f *fusedH) ComputeH(ctx context.Context, a, b, c device.Vector, d *fft.Domain) error {
	f.calls++
	return groth16.ComputeHGeneric(ctx, f.Stream, a, b, c, d)
}

func TestComputeHIsTheQuotientByZ(t *testing.T) {
	be, _ := cpu.New(1)
	dev, _ := cdev.Of(be, 0)
	st, _ := dev.NewStream()
	for _, logn := range []int{1, 3, 10} {
		n := 1 << logn
		d := fft.NewDomain(uint64(n))
		a, b, c := satisfiedABC(n, n-n/3)
		va, vb, vc := upload(t, st, a), upload(t, st, b), upload(t, st, c)
		if err := groth16.ComputeH(context.Background(), st, va, vb, vc, d); err != nil {
			t.Fatal(err)
		}
		h := make([]fr.Element, n)
		st.Download(h, va)
		checkH(t, h, a, b, c, d)
	}
	d := fft.NewDomain(8)
	v, w := upload(t, st, make([]fr.Element, 8)), upload(t, st, make([]fr.Element, 4))
	if err := groth16.ComputeH(context.Background(), st, v, v, w, d); err == nil {
		t.Error("compute h of a vector shorter than the domain succeeded")
	}
}

// The generic steps on the CPU backend are gnark's computeH bit for bit
// (internal/ref.H, the reference the CUDA kernel is checked against
// below the stage packages), on any inputs.
func TestComputeHGenericIsGnarksComputeH(t *testing.T) {
	be, _ := cpu.New(1)
	dev, _ := cdev.Of(be, 0)
	st, _ := dev.NewStream()
	for _, logn := range []int{1, 4, 9} {
		n := 1 << logn
		d := fft.NewDomain(uint64(n))
		var x [3][]fr.Element
		for i := range x {
			x[i] = make([]fr.Element, n)
			for j := range x[i] {
				x[i][j].MustSetRandom()
			}
		}
		va, vb, vc := upload(t, st, x[0]), upload(t, st, x[1]), upload(t, st, x[2])
		if err := groth16.ComputeHGeneric(context.Background(), st, va, vb, vc, d); err != nil {
			t.Fatal(err)
		}
		got := make([]fr.Element, n)
		st.Download(got, va)
		ref.H(x[0], x[1], x[2], d)
		for i := range got {
			if !got[i].Equal(&x[0][i]) {
				t.Fatalf("2^%d: coefficient %d differs from gnark's computeH", logn, i)
			}
		}
	}
}

func TestComputeHFindsTheFusedCapabilityThroughTheDecorator(t *testing.T) {
	be, _ := cpu.New(1)
	dev, _ := cdev.Of(be, 0)
	raw, _ := dev.NewStream()
	fused := &fusedH{Stream: raw}
	st := traced.New(fused, 0)
	const n = 16
	d := fft.NewDomain(n)
	a, b, c := satisfiedABC(n, 9)
	va, vb, vc := upload(t, st, a), upload(t, st, b), upload(t, st, c)
	if err := groth16.ComputeH(context.Background(), st, va, vb, vc, d); err != nil {
		t.Fatal(err)
	}
	if fused.calls != 1 {
		t.Fatalf("the fused ComputeH ran %d times, want once", fused.calls)
	}
	h := make([]fr.Element, n)
	st.Download(h, va)
	checkH(t, h, a, b, c, d)
	// without the capability the generic steps run
	plain := traced.New(raw, 0)
	va, vb, vc = upload(t, plain, a), upload(t, plain, b), upload(t, plain, c)
	if err := groth16.ComputeH(context.Background(), plain, va, vb, vc, d); err != nil || fused.calls != 1 {
		t.Fatalf("generic compute h: %v, fused calls %d", err, fused.calls)
	}
}

// BenchmarkComputeHOnCPU times the H step on the cpu backend (the generic
// steps: gnark-crypto's NTTs, then Mul, Sub and Scale as three passes).
func BenchmarkComputeHOnCPU(b *testing.B) {
	for _, logn := range []int{14, 16, 18} {
		b.Run(fmt.Sprintf("2^%d", logn), func(b *testing.B) {
			be, _ := cpu.New(1)
			dev, _ := cdev.Of(be, 0)
			st, _ := dev.NewStream()
			n := 1 << logn
			d := fft.NewDomain(uint64(n))
			x, _, _ := satisfiedABC(n, n)
			var vs [3]device.Vector
			for i := range vs {
				vs[i], _ = st.Alloc(n)
			}
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				for _, v := range vs {
					st.Upload(v, x, device.FormMontgomery)
				}
				b.StartTimer()
				if err := groth16.ComputeH(context.Background(), st, vs[0], vs[1], vs[2], d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
