package groth16

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// HComputer is the optional capability of a device stream that computes
// Groth16's H step in one fused call (the CUDA backend's streams have it).
// Its result is ComputeHGeneric's, bit for bit; ComputeH finds it with
// cdev.As and falls back on ComputeHGeneric when a stream lacks it.
type HComputer interface {
	// ComputeH overwrites a with H's coefficients (see ComputeHGeneric);
	// b and c are clobbered. len(a) == len(b) == len(c) ==
	// domain.Cardinality. It may return once the work is queued.
	ComputeH(ctx context.Context, a, b, c device.Vector, domain *fft.Domain) error
}

// ComputeH computes Groth16's H step on st: with the stream's fused
// HComputer when it has one, else with ComputeHGeneric.
func ComputeH(ctx context.Context, st cdev.Stream, a, b, c device.Vector, domain *fft.Domain) error {
	if h, ok := cdev.As[HComputer](st); ok {
		return h.ComputeH(ctx, a, b, c, domain)
	}
	return ComputeHGeneric(ctx, st, a, b, c, domain)
}

// ComputeHGeneric is gnark v0.14.0's computeH
// (backend/groth16/bls12-381/prove.go) written with the device contract's
// NTTs and vector operations: given a, b, c (the constraints' evaluations,
// zero-padded to the domain's cardinality n) it leaves in a the
// coefficients of H = (A·B − C) / Z in the bit-reversed order that gnark's
// proving key stores G1.Z in, so MSMG1(Z, a, n−1) is the Z/H term of Krs;
// b and c are clobbered. It is the reference of the H step for the
// families: the CPU backend runs it (so a proof is bit for bit gnark's),
// and every fused HComputer is tested against it. (The kernels' own
// tests, below the stage packages, take internal/ref.H, gnark's calls on
// host slices, which TestComputeHGenericIsGnarksComputeH holds equal.)
func ComputeHGeneric(ctx context.Context, st cdev.Stream, a, b, c device.Vector, domain *fft.Domain) error {
	n := domain.Cardinality
	for _, v := range []device.Vector{a, b, c} {
		if uint64(v.Len()) != n {
			return fmt.Errorf("compute h: vectors of %d, %d, %d scalars for a domain of %d", a.Len(), b.Len(), c.Len(), n)
		}
	}
	for _, v := range []device.Vector{a, b, c} {
		if err := st.FFTInverse(ctx, v, domain, fft.DIF, false); err != nil {
			return err
		}
	}
	for _, v := range []device.Vector{a, b, c} {
		if err := st.FFT(ctx, v, domain, fft.DIT, true); err != nil {
			return err
		}
	}
	// On the coset, Z(x) = x^n − 1 is the constant g^n − 1: divide by it.
	var den, one fr.Element
	one.SetOne()
	den.Exp(domain.FrMultiplicativeGen, new(big.Int).SetUint64(n))
	den.Sub(&den, &one).Inverse(&den)
	if err := st.Mul(ctx, a, a, b); err != nil {
		return err
	}
	if err := st.Sub(ctx, a, a, c); err != nil {
		return err
	}
	if err := st.Scale(ctx, a, a, den); err != nil {
		return err
	}
	return st.FFTInverse(ctx, a, domain, fft.DIF, true)
}
