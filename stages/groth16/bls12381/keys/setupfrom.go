package keys

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/pedersen"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cpu"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// Phases are the times a setup spent in each of its steps.
type Phases struct {
	// Compile is the circuit's compilation (SetupFresh and SetupOn); 0
	// when the setup used the key cache's compiled circuit (Cached).
	Compile time.Duration
	// Cached says the constraint system was the key cache's .r1cs
	// (Cache.Setup), read in Read (checksum, decoding and checks)
	// instead of compiled.
	Cached bool
	Read   time.Duration
	// QAP is the Lagrange basis at τ, the A/B/C evaluations per wire and
	// the K and Z scalars (host).
	QAP time.Duration
	// G1 and G2 are the generator multiplications making the bases.
	G1, G2 time.Duration
}

// NewKeys makes sys's Groth16 proving and verifying keys from sec, every
// field as gnark's Setup fills it for the same secret values (so the key
// files are byte for byte the same), with the base points computed by mul:
// a device stream's FixedBase capability, or nil for gnark-crypto on the
// host. With commitments (api.Commit), as gnark's Setup: the committed
// private wires' K bases (over γ) are the commitment keys' bases, with
// those bases times σᵢ, and the commitment wires' join the verifying
// key's (sec holds a σ per commitment: RandomSecrets). Cancelling ctx
// stops it between its phases (the QAP's columns, K, Z) and between
// chunks of the bases (mul checks ctx), returning ctx's error and
// dropping what it made.
func NewKeys(ctx context.Context, sys *cs.R1CS, sec Secrets, mul cdev.FixedBase) (*g16.ProvingKey, *g16.VerifyingKey, Phases, error) {
	var ph Phases
	if mul == nil {
		mul = hostFixedBase()
	}
	if err := groth16.CheckSupported("the constraint system", sys); err != nil {
		return nil, nil, ph, err
	}
	ci := sys.CommitmentInfo.(constraint.Groth16Commitments)
	nbPublic := sys.GetNbPublicVariables()
	nbWires := sys.NbInternalVariables + nbPublic + sys.GetNbSecretVariables()
	nbCons := sys.GetNbConstraints()
	if nbCons == 0 {
		return nil, nil, ph, errors.New("setup: the constraint system has no constraints")
	}
	domain := fft.NewDomain(uint64(nbCons))
	n := int(domain.Cardinality)
	if err := sec.check(domain.Cardinality, len(ci)); err != nil {
		return nil, nil, ph, err
	}
	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&sec.Gamma)
	deltaInv.Inverse(&sec.Delta)

	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, nil, ph, err
	}
	A, B, C := columns(sys, lagrangeAt(domain, sec.Tau, nbCons), nbWires)
	if err := ctx.Err(); err != nil {
		return nil, nil, ph, err
	}
	// K: (β·A + α·B + C)/γ for the public wires, the commitment wires
	// (the verifying key's) and the committed private wires (the
	// commitment keys'), /δ for the others (the proving key's); computed
	// into C, which kScalars reorders.
	parallel(nbWires, func(lo, hi int) {
		var t fr.Element
		for i := lo; i < hi; i++ {
			t.Mul(&B[i], &sec.Alpha)
			C[i].Add(&C[i], &t)
			t.Mul(&A[i], &sec.Beta)
			C[i].Add(&C[i], &t)
		}
	})
	vkK, pkK, ckK := kScalars(C, nbPublic, ci)
	C = nil
	for _, v := range []struct {
		s []fr.Element
		c *fr.Element
	}{{vkK, &gammaInv}, {pkK, &deltaInv}, {ckK, &gammaInv}} {
		parallel(len(v.s), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v.s[i].Mul(&v.s[i], v.c)
			}
		})
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, ph, err
	}
	// Z: (τⁿ - 1)/δ · τⁱ, in bit-reversed order, the last one dropped
	// (deg H = n - 2).
	var zdt, one fr.Element
	one.SetOne()
	zdt.Exp(sec.Tau, bigUint(uint64(n))).Sub(&zdt, &one).Mul(&zdt, &deltaInv)
	Z := powersTimes(zdt, sec.Tau, n)
	fft.BitReverse(Z)
	Z = Z[:n-1]

	pk, vk := new(g16.ProvingKey), new(g16.VerifyingKey)
	pk.InfinityA, A = dropZeros(A)
	pk.InfinityB, B = dropZeros(B)
	pk.NbInfinityA = uint64(nbWires - len(A))
	pk.NbInfinityB = uint64(nbWires - len(B))
	ph.QAP = time.Since(start)

	start = time.Now()
	g1 := func(what string, scalars []fr.Element) ([]curve.G1Affine, error) {
		out := make([]curve.G1Affine, len(scalars))
		if err := mul.MulGeneratorG1(ctx, out, scalars); err != nil {
			return nil, fmt.Errorf("setup: g1 %s bases: %w", what, err)
		}
		return out, nil
	}
	abd, err := g1("alpha, beta, delta", []fr.Element{sec.Alpha, sec.Beta, sec.Delta})
	if err != nil {
		return nil, nil, ph, err
	}
	pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta = abd[0], abd[1], abd[2]
	if pk.G1.A, err = g1("A", A); err != nil {
		return nil, nil, ph, err
	}
	A = nil
	if pk.G1.Z, err = g1("Z", Z); err != nil {
		return nil, nil, ph, err
	}
	Z = nil
	if vk.G1.K, err = g1("verifying key K", vkK); err != nil {
		return nil, nil, ph, err
	}
	if pk.G1.K, err = g1("K", pkK); err != nil {
		return nil, nil, ph, err
	}
	pkK = nil
	if pk.G1.B, err = g1("B", B); err != nil {
		return nil, nil, ph, err
	}
	if len(ci) > 0 {
		if pk.CommitmentKeys, vk.CommitmentKeys, err = commitmentKeys(ci, ckK, sec, g1); err != nil {
			return nil, nil, ph, err
		}
	}
	ph.G1 = time.Since(start)

	start = time.Now()
	g2 := func(what string, scalars []fr.Element) ([]curve.G2Affine, error) {
		out := make([]curve.G2Affine, len(scalars))
		if err := mul.MulGeneratorG2(ctx, out, scalars); err != nil {
			return nil, fmt.Errorf("setup: g2 %s bases: %w", what, err)
		}
		return out, nil
	}
	if pk.G2.B, err = g2("B", B); err != nil {
		return nil, nil, ph, err
	}
	bdg, err := g2("beta, delta, gamma", []fr.Element{sec.Beta, sec.Delta, sec.Gamma})
	if err != nil {
		return nil, nil, ph, err
	}
	ph.G2 = time.Since(start)
	pk.G2.Beta, pk.G2.Delta = bdg[0], bdg[1]

	vk.G1.Alpha, vk.G1.Beta, vk.G1.Delta = pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta
	vk.G2.Beta, vk.G2.Delta, vk.G2.Gamma = bdg[0], bdg[1], bdg[2]
	vk.PublicAndCommitmentCommitted = ci.GetPublicAndCommitmentCommitted(ci.CommitmentIndexes(), nbPublic)
	if err := vk.Precompute(); err != nil {
		return nil, nil, ph, fmt.Errorf("setup: verifying key: %w", err)
	}
	pk.Domain = *domain
	return pk, vk, ph, nil
}

// kScalars splits the K scalars of every wire (k, which it reuses) into
// the verifying key's (the public wires, then the commitment wires), the
// proving key's (the other private wires, ascending) and the commitment
// keys' (each commitment's committed private wires, commitment after
// commitment): gnark's layout. ci was checked (groth16.CheckSupported).
func kScalars(k []fr.Element, nbPublic int, ci constraint.Groth16Commitments) (vk, pk, ck []fr.Element) {
	if len(ci) == 0 {
		return k[:nbPublic], k[nbPublic:], nil
	}
	vk = append([]fr.Element(nil), k[:nbPublic]...)
	var removed []int
	for _, c := range ci {
		vk = append(vk, k[c.CommitmentIndex])
		for _, w := range c.PrivateCommitted {
			ck = append(ck, k[w])
		}
		removed = append(removed, c.CommitmentIndex)
		removed = append(removed, c.PrivateCommitted...)
	}
	slices.Sort(removed)
	// The proving key's, compacted in place.
	pk = k[nbPublic:nbPublic]
	for i := nbPublic; i < len(k); i++ {
		if len(removed) > 0 && removed[0] == i {
			removed = removed[1:]
			continue
		}
		pk = append(pk, k[i])
	}
	return vk, pk, ck
}

// commitmentKeys makes the Pedersen keys of the commitments ci, whose
// committed wires' K scalars (over γ) ck holds commitment after
// commitment: as gnark-crypto's pedersen.Setup with gnark's G2 point,
// the bases ck's points, BasisExpSigma the same times σᵢ, the verifying
// key G and G·(−σᵢ). g1 multiplies the generator of G1.
func commitmentKeys(ci constraint.Groth16Commitments, ck []fr.Element, sec Secrets, g1 func(string, []fr.Element) ([]curve.G1Affine, error)) ([]pedersen.ProvingKey, []pedersen.VerifyingKey, error) {
	sigma := make([]fr.Element, len(ck))
	at := 0
	for i, c := range ci {
		for range c.PrivateCommitted {
			sigma[at].Mul(&ck[at], &sec.Sigmas[i])
			at++
		}
	}
	bases, err := g1("commitment", ck)
	if err != nil {
		return nil, nil, err
	}
	times, err := g1("commitment·σ", sigma)
	if err != nil {
		return nil, nil, err
	}
	pks := make([]pedersen.ProvingKey, len(ci))
	vks := make([]pedersen.VerifyingKey, len(ci))
	at = 0
	for i, c := range ci {
		n := len(c.PrivateCommitted)
		pks[i] = pedersen.ProvingKey{Basis: bases[at : at+n : at+n], BasisExpSigma: times[at : at+n : at+n]}
		at += n
		var neg fr.Element
		neg.Neg(&sec.Sigmas[i])
		vks[i].G = sec.CommitmentG2
		vks[i].GSigmaNeg.ScalarMultiplication(&sec.CommitmentG2, neg.BigInt(new(big.Int)))
	}
	return pks, vks, nil
}

// dropZeros returns the flags of the zero scalars of s and s without them
// (in place): their bases would be the point at infinity, which gnark's
// keys leave out and flag.
func dropZeros(s []fr.Element) ([]bool, []fr.Element) {
	inf := make([]bool, len(s))
	k := 0
	for i := range s {
		if s[i].IsZero() {
			inf[i] = true
			continue
		}
		s[k] = s[i]
		k++
	}
	return inf, s[:k]
}

// commitments is the number of sys's commitments (api.Commit).
func commitments(sys *cs.R1CS) int {
	ci, _ := sys.CommitmentInfo.(constraint.Groth16Commitments)
	return len(ci)
}

// hostFixedBase is the CPU backend's generator multiplication.
func hostFixedBase() cdev.FixedBase {
	b, _ := cpu.New(1)
	d, _ := cdev.Of(b, 0)
	st, _ := d.NewStream()
	fb, _ := cdev.As[cdev.FixedBase](st)
	return fb
}

// SetupFresh compiles the named circuit at size and makes its keys with
// NewKeys from fresh secrets (RandomSecrets, dropped when it returns), the
// bases computed by bases (nil: on the host), returning each phase's
// time (Phases.Compile the circuit's compilation). SetupOn, what
// `prooflane setup --backend` runs, is the same with a log and
// cancellation. Like Setup, it is for benchmarks and demos: a production
// key needs a multi-party ceremony.
func SetupFresh(ctx context.Context, circuit string, size int, bases cdev.FixedBase) (*Set, Phases, error) {
	start := time.Now()
	sys, _, err := Compile(circuit, size)
	if err != nil {
		return nil, Phases{}, err
	}
	compile := time.Since(start)
	sec, err := RandomSecrets(commitments(sys))
	if err != nil {
		return nil, Phases{}, err
	}
	encoded := encodeR1CS(sys) // while the key is made, as in SetupOn
	pk, vk, ph, err := NewKeys(ctx, sys, sec, bases)
	ph.Compile = compile
	if err != nil {
		return nil, ph, fmt.Errorf("setup of circuit %q size %d: %w", circuit, size, err)
	}
	file, err := encoded()
	if err != nil {
		return nil, ph, fmt.Errorf("setup of circuit %q size %d: encoding the r1cs: %w", circuit, size, err)
	}
	return &Set{Circuit: circuit, Size: size, R1CS: sys, PK: pk, VK: vk, r1csFile: file}, ph, nil
}

// String is the phases as "compile 1.2s, qap 0.8s, g1 3.1s, g2 2.0s",
// or "compile cached (r1cs read in 0.3s), qap ..." when Cached.
func (p Phases) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	compile := fmt.Sprintf("compile %v", r(p.Compile))
	if p.Cached {
		compile = fmt.Sprintf("compile cached (r1cs read in %v)", r(p.Read))
	}
	return fmt.Sprintf("%s, qap %v, g1 %v, g2 %v", compile, r(p.QAP), r(p.G1), r(p.G2))
}

// SetupOn is SetupLogged making the keys with prooflane's setup (NewKeys
// from fresh secrets) with the bases computed on device 0 of be, through
// its streams' FixedBase capability (on the host, said on log, when it
// has none); with be nil it is SetupLogged, gnark's setup. It says each
// phase's time on log. Cancelling ctx returns at once while the circuit
// compiles (the compilation runs on in the background, as in
// SetupLogged) and between chunks of the device's work after it; nothing
// is written either way. It always compiles; Cache.Setup is SetupOn
// using the cache's compiled circuit when it can.
func SetupOn(ctx context.Context, circuit string, size int, be device.Backend, log io.Writer) (*Set, error) {
	s, _, err := setupOn(ctx, circuit, size, be, log, nil)
	return s, err
}

// setupOn is SetupOn making the keys of cached's system (the key
// cache's, Cache.Setup) instead of compiling the circuit when cached is
// not nil, returning the phases too.
func setupOn(ctx context.Context, circuit string, size int, be device.Backend, log io.Writer, cached *cachedR1CS) (*Set, Phases, error) {
	if be == nil {
		return setupGnark(ctx, circuit, size, log, cached)
	}
	if log == nil {
		log = io.Discard
	}
	what := fmt.Sprintf("setup of circuit %q size %d", circuit, size)
	stop := heartbeat(log, heartbeatEvery, what)
	defer stop()
	var bases cdev.FixedBase
	d, err := cdev.Of(be, 0)
	if err != nil {
		return nil, Phases{}, fmt.Errorf("%s: %w", what, err)
	}
	st, err := d.NewStream()
	if err != nil {
		return nil, Phases{}, fmt.Errorf("%s: %w", what, err)
	}
	defer st.Close()
	on := fmt.Sprintf("the bases on %s device 0 (%s)", be.Name(), d.Info().Name)
	if fb, ok := cdev.As[cdev.FixedBase](st); ok {
		bases = fb
	} else {
		on = "the bases on the host"
		fmt.Fprintf(log, "%s: the %s backend cannot multiply the generators: %s\n", what, be.Name(), on)
	}
	sys, compiled, err := systemOf(ctx, what, circuit, size, cached)
	if err != nil {
		return nil, Phases{}, err
	}
	sec, err := RandomSecrets(commitments(sys))
	if err != nil {
		return nil, Phases{}, err
	}
	// gnark's encoding of the R1CS (about 50 MB/s a core, the larger
	// part of writing the files at scale) runs while the key is made;
	// a system read from the cache is in its file already.
	var encoded func() ([]byte, error)
	if !cached.inFile() {
		encoded = encodeR1CS(sys)
	}
	pk, vk, ph, err := NewKeys(ctx, sys, sec, bases)
	if ctx.Err() != nil {
		return nil, ph, fmt.Errorf("%s stopped, no keys written: %w", what, context.Cause(ctx))
	}
	if err != nil {
		return nil, ph, fmt.Errorf("%s: %w", what, err)
	}
	ph.Compile = compiled
	s := &Set{Circuit: circuit, Size: size, R1CS: sys, PK: pk, VK: vk}
	if cached.inFile() {
		ph.Cached, ph.Read = true, cached.read
		s.r1csInfo = cached.info
		fmt.Fprintf(log, "%s, %s: %s\n", what, on, ph)
		return s, ph, nil
	}
	wait := time.Now()
	if s.r1csFile, err = encoded(); err != nil {
		return nil, ph, fmt.Errorf("%s: encoding the r1cs: %w", what, err)
	}
	fmt.Fprintf(log, "%s, %s: %s, r1cs encoded alongside (waited %v for it)\n", what, on, ph, time.Since(wait).Round(time.Millisecond))
	return s, ph, nil
}

// SetupSystem makes the keys of sys, a compiled constraint system (a
// user's), named name in the cache at its constraint count, as SetupOn
// makes them on be (nil: gnark's setup): nothing is compiled. Cancelling
// ctx stops it, writing nothing.
func SetupSystem(ctx context.Context, name string, sys *cs.R1CS, be device.Backend, log io.Writer) (*Set, error) {
	s, _, err := setupOn(ctx, name, sys.GetNbConstraints(), be, log, &cachedR1CS{sys: sys})
	return s, err
}

// systemOf returns cached's constraint system, or compiles circuit at
// size and returns the time it took. Cancelling ctx returns at once
// while it compiles (the compilation runs on in the background, its
// result dropped), with an error saying that what (the setup) stopped
// and no keys were written.
func systemOf(ctx context.Context, what, circuit string, size int, cached *cachedR1CS) (*cs.R1CS, time.Duration, error) {
	if cached != nil {
		return cached.sys, 0, nil
	}
	type compiled struct {
		sys *cs.R1CS
		err error
		d   time.Duration
	}
	done := make(chan compiled, 1)
	go func() {
		start := time.Now()
		sys, _, err := Compile(circuit, size)
		done <- compiled{sys, err, time.Since(start)}
	}()
	select {
	case c := <-done:
		return c.sys, c.d, c.err
	case <-ctx.Done():
		return nil, 0, fmt.Errorf("%s stopped, no keys written: %w", what, context.Cause(ctx))
	}
}

// encodeR1CS starts gnark's encoding of sys (what its WriteTo writes) on
// a goroutine of its own and returns the wait for it. sys is only read.
// A caller that returns without waiting leaves the goroutine to end by
// itself, its bytes dropped.
func encodeR1CS(sys *cs.R1CS) func() ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var buf bytes.Buffer
		_, err := sys.WriteTo(&buf)
		done <- result{buf.Bytes(), err}
	}()
	return func() ([]byte, error) {
		r := <-done
		return r.b, r.err
	}
}

// writeR1CS writes s's R1CS as its WriteTo does, from the encoding made
// during the setup when there is one (dropped then: the key in memory
// does not keep a second copy of its system).
func (s *Set) writeR1CS(w io.Writer) (int64, error) {
	if s.r1csFile == nil {
		return s.R1CS.WriteTo(w)
	}
	n, err := w.Write(s.r1csFile)
	if err == nil {
		s.r1csFile = nil
	}
	return int64(n), err
}
