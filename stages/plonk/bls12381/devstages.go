package plonk

import (
	"context"
	"fmt"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages"
)

// The stages that work on the device. Each opens a stream, allocates what
// it needs, and frees it all before it returns: nothing stays on the
// device between stages but the resident SRS.

// run opens the partition's device work, runs f, and closes it.
func (s *onDevice) run(in *stages.Input, f func(w *work) error) error {
	w, err := s.open(in)
	if err != nil {
		return err
	}
	err = f(w)
	if cerr := w.close(); err == nil {
		err = cerr
	}
	return err
}

// commitStage is what the committing stages share: the partition's state
// from its input of type t, then commit run on the device with the SRS
// bases of the state's key (its Lagrange form, or canonical).
func (s *onDevice) commitStage(in *stages.Input, t stages.DataType, lagrange bool,
	commit func(w *work, st *State, bases device.G1Bases) error) (*State, error) {
	st, err := stateOf(in, t)
	if err != nil {
		return nil, err
	}
	err = s.run(in, func(w *work) error {
		bases, err := w.bases(st.key, lagrange)
		if err != nil {
			return err
		}
		return commit(w, st, bases)
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// stageErr names the stage and partition in an error of step what.
func stageErr(in *stages.Input, what string, err error) error {
	return fmt.Errorf("stage %q partition %d: %s: %w", in.Stage, in.Partition, what, err)
}

// commitLRO is plonk.commit_lro: [L], [R], [O] (blinded), then γ and β.
type commitLRO struct{ onDevice }

func (s *commitLRO) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := s.commitStage(in, TypeSolved, true, func(w *work, st *State, lag device.G1Bases) error {
		for i, p := range []struct {
			v, b []fr.Element
			name string
		}{{st.l, st.bl, "l"}, {st.r, st.br, "r"}, {st.o, st.bo, "o"}} {
			c, err := w.commit(ctx, lag, p.v, p.name)
			if err != nil {
				return err
			}
			b := commitBlinding(st.key.n, p.b, st.key.PK.Kzg.G1)
			st.proof.LRO[i].Add(&c, &b)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := bindPublicData(st.fs, "gamma", st.key.VK, st.public); err != nil {
		return nil, stageErr(in, "transcript", err)
	}
	if st.gamma, err = deriveRandomness(st.fs, "gamma", &st.proof.LRO[0], &st.proof.LRO[1], &st.proof.LRO[2]); err != nil {
		return nil, stageErr(in, "gamma", err)
	}
	b, err := st.fs.ComputeChallenge("beta")
	if err != nil {
		return nil, stageErr(in, "beta", err)
	}
	st.beta.SetBytes(b)
	return st, nil
}

// commitZ is plonk.commit_z: [Z] (blinded), then α (bound to the BSB22
// commitments, then [Z]).
type commitZ struct{ onDevice }

func (s *commitZ) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := s.commitStage(in, TypeRatio, true, func(w *work, st *State, lag device.G1Bases) error {
		c, err := w.commit(ctx, lag, st.z, "z")
		if err != nil {
			return err
		}
		b := commitBlinding(st.key.n, st.bz, st.key.PK.Kzg.G1)
		st.proof.Z.Add(&c, &b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	deps := make([]*curve.G1Affine, 0, len(st.proof.Bsb22Commitments)+1)
	for i := range st.proof.Bsb22Commitments {
		deps = append(deps, &st.proof.Bsb22Commitments[i])
	}
	if st.alpha, err = deriveRandomness(st.fs, "alpha", append(deps, &st.proof.Z)...); err != nil {
		return nil, stageErr(in, "alpha", err)
	}
	return st, nil
}

// quotient is plonk.quotient: h = (gate + α·ordering + α²·local) / Z_H,
// evaluated on domain1's coset (4n points) with the device's NTTs and
// element-wise operations, interpolated back, split in three and
// committed; then ζ. (gnark evaluates on ρ cosets of n points one after
// another; the points are the same, and so is h.)
type quotient struct{ onDevice }

func (s *quotient) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := stateOf(in, TypeZ)
	if err != nil {
		return nil, err
	}
	k := st.key
	err = s.run(in, func(w *work) error {
		if err := s.numerator(ctx, w, st); err != nil {
			return err
		}
		canon, err := w.bases(k, false)
		if err != nil {
			return err
		}
		n := k.n
		for i := range 3 {
			if st.proof.H[i], err = w.commit(ctx, canon, st.h[i*(n+2):(i+1)*(n+2)], fmt.Sprintf("h%d", i+1)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if st.zeta, err = deriveRandomness(st.fs, "zeta", &st.proof.H[0], &st.proof.H[1], &st.proof.H[2]); err != nil {
		return nil, stageErr(in, "zeta", err)
	}
	return st, nil
}

// numerator computes h's coefficients into st.h and the canonical forms of
// L, R, O and Z into st.lc, st.rc, st.oc, st.zc (and of the BSB22
// commitments' polynomials into st.pi2c).
func (s *quotient) numerator(ctx context.Context, w *work, st *State) error {
	k := st.key
	n, N := k.n, int(k.domain1.Cardinality)
	d0, d1 := k.domain0, k.domain1
	ds := w.st
	fail := func(err error, what string) error { return w.errf(err, "quotient: %s", what) }

	// cosetEval takes v (canonical, zero beyond n) to its evaluations on
	// domain1's coset, bit-reversed.
	cosetEval := func(v device.Vector) error {
		return ds.FFT(ctx, v, d1, fft.DIF, true)
	}
	// canonical takes v (Lagrange, n) to canonical form in natural order.
	canonical := func(v device.Vector) error {
		if err := ds.FFTInverse(ctx, v, d0, fft.DIF, false); err != nil {
			return err
		}
		return ds.BitReverse(ctx, v, n)
	}
	// selector uploads a canonical vector of the key and evaluates it.
	selector := func(c []fr.Element) (device.Vector, error) {
		v, err := w.upload(c, N)
		if err != nil {
			return nil, err
		}
		return v, cosetEval(v)
	}

	one := []fr.Element{{}, fr.One()}
	xs, err := w.upload(one, N) // the polynomial X
	if err != nil {
		return err
	}
	if err := cosetEval(xs); err != nil {
		return fail(err, "x on the coset")
	}
	// zh = xⁿ-1 on the coset: x squared log₂(n) times.
	zh, err := w.alloc(N)
	if err != nil {
		return err
	}
	if err := ds.Scale(ctx, zh, xs, fr.One()); err != nil {
		return fail(err, "x to the n")
	}
	for m := k.n; m > 1; m >>= 1 {
		if err := ds.Mul(ctx, zh, zh, zh); err != nil {
			return fail(err, "x to the n")
		}
	}
	minusOne := fr.One()
	minusOne.Neg(&minusOne)
	if err := ds.AddScalar(ctx, zh, zh, minusOne); err != nil {
		return fail(err, "x to the n")
	}
	tmp, err := w.alloc(N)
	if err != nil {
		return err
	}
	// addBlinding sets v += b(c·x)·(xⁿ-1), b's coefficients scaled by cⁱ.
	addBlinding := func(v device.Vector, b []fr.Element, c fr.Element) error {
		bs := make([]fr.Element, len(b))
		acc := fr.One()
		for i := range b {
			bs[i].Mul(&b[i], &acc)
			acc.Mul(&acc, &c)
		}
		d := len(bs) - 1
		if err := ds.Scale(ctx, tmp, xs, bs[d]); err != nil {
			return err
		}
		for i := d - 1; i >= 0; i-- {
			if i < d-1 {
				if err := ds.Mul(ctx, tmp, tmp, xs); err != nil {
					return err
				}
			}
			if err := ds.AddScalar(ctx, tmp, tmp, bs[i]); err != nil {
				return err
			}
		}
		if err := ds.Mul(ctx, tmp, tmp, zh); err != nil {
			return err
		}
		return ds.Add(ctx, v, v, tmp)
	}

	// The BSB22 commitments' terms of the gate constraint, Σ Qcpᵢ·pi2ᵢ,
	// summed first into the vector that becomes the gate's (before L, R,
	// O and Z are on the device, so the peak stays the ordering
	// constraint's); pi2ᵢ's canonical form is kept for linearize.
	var gate device.Vector
	st.pi2c = make([][]fr.Element, len(st.pi2))
	for i, lag := range st.pi2 {
		p, err := w.upload(lag, N)
		if err != nil {
			return err
		}
		if err := canonical(p); err != nil {
			return fail(err, "bsb22 commitment to canonical form")
		}
		st.pi2c[i] = make([]fr.Element, n)
		if err := ds.Download(st.pi2c[i], p); err != nil {
			return fail(err, "download")
		}
		if err := cosetEval(p); err != nil {
			return fail(err, "bsb22 commitment on the coset")
		}
		q, err := selector(k.qcp[i])
		if err != nil {
			return fail(err, "qcp")
		}
		if err := ds.Mul(ctx, p, p, q); err != nil {
			return fail(err, "gate")
		}
		w.free(q)
		if gate == nil {
			gate = p
			continue
		}
		if err := ds.Add(ctx, gate, gate, p); err != nil {
			return fail(err, "gate")
		}
		w.free(p)
	}

	// L, R, O, Z: to canonical (kept on the host for linearize), then
	// blinded on the coset; ZS = Z(ωX) from Z's coefficients scaled by ωⁱ.
	st.lc, st.rc, st.oc, st.zc = make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	var wires [4]device.Vector
	var zs device.Vector
	for i, p := range []struct {
		lag, canon, b []fr.Element
	}{{st.l, st.lc, st.bl}, {st.r, st.rc, st.br}, {st.o, st.oc, st.bo}, {st.z, st.zc, st.bz}} {
		v, err := w.upload(p.lag, N)
		if err != nil {
			return err
		}
		if err := canonical(v); err != nil {
			return fail(err, "to canonical form")
		}
		if err := ds.Download(p.canon, v); err != nil {
			return fail(err, "download")
		}
		if i == 3 {
			omega, err := w.upload(k.omegaPow, N)
			if err != nil {
				return err
			}
			if zs, err = w.alloc(N); err != nil {
				return err
			}
			if err := ds.Mul(ctx, zs, v, omega); err != nil {
				return fail(err, "z shifted")
			}
			w.free(omega)
			if err := cosetEval(zs); err != nil {
				return fail(err, "z shifted on the coset")
			}
			if err := addBlinding(zs, p.b, k.domain0.Generator); err != nil {
				return fail(err, "z shifted blinding")
			}
		}
		if err := cosetEval(v); err != nil {
			return fail(err, "on the coset")
		}
		if err := addBlinding(v, p.b, fr.One()); err != nil {
			return fail(err, "blinding")
		}
		wires[i] = v
	}
	L, R, O, Z := wires[0], wires[1], wires[2], wires[3]

	// The gate constraint: Ql·L + Qr·R + Qm·L·R + Qo·O + Qk (Qk with the
	// public inputs and the commitments' hashes) + the commitments' terms.
	for _, term := range []struct {
		q     []fr.Element
		a, b  device.Vector
		label string
	}{{k.ql, L, nil, "ql"}, {k.qr, R, nil, "qr"}, {k.qm, L, R, "qm"}, {k.qo, O, nil, "qo"}} {
		t, err := selector(term.q)
		if err != nil {
			return fail(err, term.label)
		}
		if err := ds.Mul(ctx, t, t, term.a); err != nil {
			return fail(err, "gate")
		}
		if term.b != nil {
			if err := ds.Mul(ctx, t, t, term.b); err != nil {
				return fail(err, "gate")
			}
		}
		if gate == nil {
			gate = t
			continue
		}
		if err := ds.Add(ctx, gate, gate, t); err != nil {
			return fail(err, "gate")
		}
		w.free(t)
	}
	qk := append([]fr.Element(nil), k.qkLagrange...)
	copy(qk, st.public)
	for i, c := range k.commitments {
		qk[len(st.public)+c.CommitmentIndex] = st.bsb22Values[i]
	}
	qkv, err := w.upload(qk, N)
	if err != nil {
		return err
	}
	if err := canonical(qkv); err != nil {
		return fail(err, "qk to canonical form")
	}
	if err := cosetEval(qkv); err != nil {
		return fail(err, "qk on the coset")
	}
	if err := ds.Add(ctx, gate, gate, qkv); err != nil {
		return fail(err, "gate")
	}
	w.free(qkv)

	// The ordering constraint: ZS·Π(wire + β·Sᵢ + γ) - Z·Π(wire + β·uⁱ·x + γ).
	var ordering device.Vector
	for i, term := range []struct {
		s    []fr.Element
		wire device.Vector
	}{{k.s1, L}, {k.s2, R}, {k.s3, O}} {
		t, err := selector(term.s)
		if err != nil {
			return fail(err, "s")
		}
		if err := ds.Scale(ctx, t, t, st.beta); err != nil {
			return fail(err, "ordering")
		}
		if err := ds.Add(ctx, t, t, term.wire); err != nil {
			return fail(err, "ordering")
		}
		if err := ds.AddScalar(ctx, t, t, st.gamma); err != nil {
			return fail(err, "ordering")
		}
		if i == 0 {
			ordering = t
			continue
		}
		if err := ds.Mul(ctx, ordering, ordering, t); err != nil {
			return fail(err, "ordering")
		}
		w.free(t)
	}
	if err := ds.Mul(ctx, ordering, ordering, zs); err != nil {
		return fail(err, "ordering")
	}
	w.free(zs)
	var bu fr.Element
	bu.Set(&st.beta)
	for _, wire := range []device.Vector{L, R, O} {
		if err := ds.Scale(ctx, tmp, xs, bu); err != nil {
			return fail(err, "ordering")
		}
		if err := ds.Add(ctx, wire, wire, tmp); err != nil {
			return fail(err, "ordering")
		}
		if err := ds.AddScalar(ctx, wire, wire, st.gamma); err != nil {
			return fail(err, "ordering")
		}
		bu.Mul(&bu, &k.VK.CosetShift)
	}
	for _, v := range []device.Vector{R, O, Z} {
		if err := ds.Mul(ctx, L, L, v); err != nil {
			return fail(err, "ordering")
		}
	}
	if err := ds.Sub(ctx, ordering, ordering, L); err != nil {
		return fail(err, "ordering")
	}
	w.free(L, R, O)

	// The local constraint (Z-1)·L₁, and the numerator
	// ((local·α + ordering)·α + gate), divided by Z_H.
	l1, err := selector(k.lOne)
	if err != nil {
		return fail(err, "l1")
	}
	// 1/Z_H into tmp: Horner of k.zhInvPoly on y = xⁿ (zh+1).
	a := k.zhInvPoly
	plusOne := fr.One()
	steps := []func() error{
		func() error { return ds.AddScalar(ctx, Z, Z, minusOne) },
		func() error { return ds.Mul(ctx, Z, Z, l1) },
		func() error { return ds.Scale(ctx, Z, Z, st.alpha) },
		func() error { return ds.Add(ctx, Z, Z, ordering) },
		func() error { return ds.Scale(ctx, Z, Z, st.alpha) },
		func() error { return ds.Add(ctx, Z, Z, gate) },
		func() error { return ds.AddScalar(ctx, zh, zh, plusOne) },
		func() error { return ds.Scale(ctx, tmp, zh, a[len(a)-1]) },
		func() error { return ds.AddScalar(ctx, tmp, tmp, a[len(a)-2]) },
	}
	for j := len(a) - 3; j >= 0; j-- {
		steps = append(steps,
			func() error { return ds.Mul(ctx, tmp, tmp, zh) },
			func() error { return ds.AddScalar(ctx, tmp, tmp, a[j]) })
	}
	steps = append(steps,
		func() error { return ds.Mul(ctx, Z, Z, tmp) },
		func() error { return ds.FFTInverse(ctx, Z, d1, fft.DIT, true) },
	)
	for _, f := range steps {
		if err := f(); err != nil {
			return fail(err, "numerator")
		}
	}
	st.h = make([]fr.Element, 3*(n+2))
	if err := ds.Download(st.h, Z); err != nil {
		return fail(err, "download h")
	}
	return ds.Sync()
}

// open is plonk.open: the commitments to Z's opening quotient at ωζ and to
// the linearised polynomial.
type open struct{ onDevice }

func (s *open) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := s.commitStage(in, TypeLinearized, false, func(w *work, st *State, canon device.G1Bases) error {
		var err error
		if st.proof.ZShiftedOpening.H, err = w.commit(ctx, canon, st.zOpenQuotient, "z opening"); err != nil {
			return err
		}
		st.linDigest, err = w.commit(ctx, canon, st.lin, "linearised polynomial")
		return err
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// batchOpen is plonk.batch_open: the commitment to the folded quotient,
// which completes the proof, and (verify) the proof checked with the
// job's verifying key.
type batchOpen struct {
	onDevice
	verify bool
}

func (s *batchOpen) Run(ctx context.Context, in *stages.Input) (any, error) {
	st, err := s.commitStage(in, TypeFolded, false, func(w *work, st *State, canon device.G1Bases) error {
		var err error
		st.proof.BatchedProof.H, err = w.commit(ctx, canon, st.batchQuotient, "batched opening")
		return err
	})
	if err != nil {
		return nil, err
	}
	if s.verify {
		// What gnark's plonk.Verify runs for BLS12-381.
		if err := gplonk.Verify(st.proof, st.key.VK, st.public); err != nil {
			return nil, fmt.Errorf("stage %q partition %d: proof does not verify: %w: the proving key or a stage's output is wrong, so the proof is not returned", in.Stage, in.Partition, err)
		}
	}
	return st.proof, nil
}
