package plonk_test

import (
	"context"
	"crypto/sha256"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/hash/sha2"
	"github.com/consensys/gnark/std/lookup/logderivlookup"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/math/emulated/emparams"
	"github.com/consensys/gnark/std/math/uints"
	"github.com/consensys/gnark/std/rangecheck"

	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// The circuits below are built on gnark's standard gadgets, each of which
// commits (api.Commit, BSB22 in PLONK) through std/multicommit.

// rangeCircuit range-checks each of Vals to Bits bits (std/rangecheck)
// and binds their sum to the public Sum.
type rangeCircuit struct {
	Vals []frontend.Variable
	Sum  frontend.Variable `gnark:",public"`
	Bits int               `gnark:"-"`
}

func (c *rangeCircuit) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	var sum frontend.Variable = 0
	for _, v := range c.Vals {
		rc.Check(v, c.Bits)
		sum = api.Add(sum, v)
	}
	api.AssertIsEqual(sum, c.Sum)
	return nil
}

// lookupCircuit looks Queries up in a table of Entries
// (std/lookup/logderivlookup) and binds the results' sum to Sum.
type lookupCircuit struct {
	Entries []frontend.Variable
	Queries []frontend.Variable
	Sum     frontend.Variable `gnark:",public"`
}

func (c *lookupCircuit) Define(api frontend.API) error {
	t := logderivlookup.New(api)
	for _, e := range c.Entries {
		t.Insert(e)
	}
	var sum frontend.Variable = 0
	for _, r := range t.Lookup(c.Queries...) {
		sum = api.Add(sum, r)
	}
	api.AssertIsEqual(sum, c.Sum)
	return nil
}

// emulatedCircuit multiplies Xs in BN254's base field, a non-native field
// (std/math/emulated, whose limbs std/rangecheck checks), and wants the
// product Prod.
type emulatedCircuit struct {
	Xs   []emulated.Element[emparams.BN254Fp]
	Prod emulated.Element[emparams.BN254Fp] `gnark:",public"`
}

func (c *emulatedCircuit) Define(api frontend.API) error {
	f, err := emulated.NewField[emparams.BN254Fp](api)
	if err != nil {
		return err
	}
	acc := &c.Xs[0]
	for i := 1; i < len(c.Xs); i++ {
		acc = f.Mul(acc, &c.Xs[i])
	}
	f.AssertIsEqual(acc, &c.Prod)
	return nil
}

// sha2Circuit hashes Msg with SHA-256 (std/hash/sha2, on std/math/uints'
// lookup tables) and wants the digest Digest.
type sha2Circuit struct {
	Msg    []uints.U8
	Digest [32]uints.U8 `gnark:",public"`
}

func (c *sha2Circuit) Define(api frontend.API) error {
	h, err := sha2.New(api)
	if err != nil {
		return err
	}
	h.Write(c.Msg)
	sum := h.Sum()
	u, err := uints.NewBytes(api)
	if err != nil {
		return err
	}
	for i := range c.Digest {
		u.AssertIsEqual(c.Digest[i], sum[i])
	}
	return nil
}

// gadget is a circuit on a standard gadget and its satisfying assignments.
type gadget struct {
	name   string
	uses   string // the gadget, for messages
	new    func() frontend.Circuit
	assign func(r *rand.Rand) frontend.Circuit
}

var gadgets = []gadget{
	{"rangecheck", "std/rangecheck",
		func() frontend.Circuit { return &rangeCircuit{Vals: make([]frontend.Variable, 64), Bits: 20} },
		func(r *rand.Rand) frontend.Circuit {
			c := &rangeCircuit{Vals: make([]frontend.Variable, 64), Bits: 20}
			var sum uint64
			for i := range c.Vals {
				v := r.Uint64N(1 << 20)
				c.Vals[i], sum = v, sum+v
			}
			c.Sum = sum
			return c
		}},
	{"logderivlookup", "std/lookup/logderivlookup",
		func() frontend.Circuit {
			return &lookupCircuit{Entries: make([]frontend.Variable, 32), Queries: make([]frontend.Variable, 64)}
		},
		func(r *rand.Rand) frontend.Circuit {
			c := &lookupCircuit{Entries: make([]frontend.Variable, 32), Queries: make([]frontend.Variable, 64)}
			entries := make([]fr.Element, len(c.Entries))
			for i := range entries {
				entries[i].SetUint64(r.Uint64())
				entries[i].Mul(&entries[i], &entries[i])
				c.Entries[i] = entries[i].String()
			}
			var sum fr.Element
			for i := range c.Queries {
				q := r.IntN(len(entries))
				c.Queries[i] = q
				sum.Add(&sum, &entries[q])
			}
			c.Sum = sum.String()
			return c
		}},
	{"emulated", "std/math/emulated",
		func() frontend.Circuit { return newEmulated(4) },
		func(r *rand.Rand) frontend.Circuit { return assignEmulated(r, 4) }},
}

func newEmulated(n int) *emulatedCircuit {
	return &emulatedCircuit{Xs: make([]emulated.Element[emparams.BN254Fp], n)}
}

// assignEmulated is an emulatedCircuit of n random factors and their
// product modulo BN254's base field.
func assignEmulated(r *rand.Rand, n int) *emulatedCircuit {
	p := emparams.BN254Fp{}.Modulus()
	c := newEmulated(n)
	prod := big.NewInt(1)
	for i := range c.Xs {
		var b [40]byte
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		x := new(big.Int).SetBytes(b[:])
		x.Mod(x, p)
		c.Xs[i] = emulated.ValueOf[emparams.BN254Fp](x)
		prod.Mul(prod, x).Mod(prod, p)
	}
	c.Prod = emulated.ValueOf[emparams.BN254Fp](prod)
	return c
}

// newSHA2 is a sha2Circuit of a message of n bytes; assignSHA2 its
// assignment for a random message.
func newSHA2(n int) *sha2Circuit { return &sha2Circuit{Msg: make([]uints.U8, n)} }

func assignSHA2(r *rand.Rand, n int) *sha2Circuit {
	msg := make([]byte, n)
	for i := range msg {
		msg[i] = byte(r.Uint32())
	}
	c := &sha2Circuit{Msg: uints.NewU8Array(msg)}
	d := sha256.Sum256(msg)
	for i := range d {
		c.Digest[i] = uints.NewU8(d[i])
	}
	return c
}

// gadgetKeys holds each gadget circuit's key, set up once per test binary.
var gadgetKeys sync.Map

func gadgetKey(t testing.TB, name string, c frontend.Circuit) *plonk.Key {
	t.Helper()
	if k, ok := gadgetKeys.Load(name); ok {
		return k.(*plonk.Key)
	}
	spr, err := plonk.CompileCircuit(name, c)
	if err != nil {
		t.Fatal(err)
	}
	k, err := plonk.UnsafeSetup(context.Background(), name, spr)
	if err != nil {
		t.Fatal(err)
	}
	gadgetKeys.Store(name, k)
	return k
}

// gadgetWitnesses returns partitions witnesses of assign, from seed.
func gadgetWitnesses(t testing.TB, assign func(*rand.Rand) frontend.Circuit, partitions int, seed uint64) []witness.Witness {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	ws := make([]witness.Witness, partitions)
	for p := range ws {
		w, err := workloads.Witness(assign(r))
		if err != nil {
			t.Fatal(err)
		}
		ws[p] = w
	}
	return ws
}

// Each gadget's circuit commits; a job of three partitions (three
// assignments) proves through the stages, and gnark's plonk.Verify
// accepts every proof.
func TestGadgetCircuitsProveThroughTheStagesAndGnarkVerifies(t *testing.T) {
	for _, g := range gadgets {
		t.Run(g.name, func(t *testing.T) {
			k := gadgetKey(t, g.name, g.new())
			if k.Commitments() == 0 {
				t.Fatalf("the %s circuit makes no commitment", g.uses)
			}
			ws := gadgetWitnesses(t, g.assign, 3, 5)
			proofs := proveJob(t, k, ws)
			if len(proofs) != 3 {
				t.Fatalf("%d proofs, want 3", len(proofs))
			}
			for p, pr := range proofs {
				if len(pr.Bsb22Commitments) != k.Commitments() {
					t.Errorf("partition %d: %d commitments in the proof, want %d", p, len(pr.Bsb22Commitments), k.Commitments())
				}
				if err := verify(t, k, ws[p], pr); err != nil {
					t.Errorf("partition %d: gnark's plonk.Verify: %v", p, err)
				}
			}
		})
	}
}

// A proof's BSB22 commitment is bound by the transcript and by the
// public input it hashes to: another partition's commitment (a valid one
// of another assignment) or a moved one is rejected by gnark's verifier,
// and so is a proof whose opening of the commitment's selector Qcp at ζ
// is off by one.
func TestTamperedCommitmentOrOpeningIsRejected(t *testing.T) {
	g := gadgets[0]
	k := gadgetKey(t, g.name, g.new())
	ws := gadgetWitnesses(t, g.assign, 2, 21)
	proofs := proveJob(t, k, ws)
	pr := proofs[0]
	if err := verify(t, k, ws[0], pr); err != nil {
		t.Fatalf("untampered proof: %v", err)
	}
	_, _, g1, _ := curve.Generators()
	one := fr.One()
	for _, tc := range []struct {
		what   string
		tamper func(p *gplonk.Proof)
	}{
		{"another partition's commitment", func(p *gplonk.Proof) { p.Bsb22Commitments[0] = proofs[1].Bsb22Commitments[0] }},
		{"a moved commitment", func(p *gplonk.Proof) { p.Bsb22Commitments[0].Add(&p.Bsb22Commitments[0], &g1) }},
		{"Qcp(ζ) off by one", func(p *gplonk.Proof) { p.BatchedProof.ClaimedValues[6].Add(&p.BatchedProof.ClaimedValues[6], &one) }},
		{"the commitment dropped", func(p *gplonk.Proof) {
			p.Bsb22Commitments = nil
			p.BatchedProof.ClaimedValues = p.BatchedProof.ClaimedValues[:6]
		}},
	} {
		tampered := *pr
		tampered.Bsb22Commitments = slices.Clone(pr.Bsb22Commitments)
		tampered.BatchedProof.ClaimedValues = slices.Clone(pr.BatchedProof.ClaimedValues)
		tc.tamper(&tampered)
		if err := verify(t, k, ws[0], &tampered); err == nil {
			t.Errorf("a proof with %s verified", tc.what)
		}
	}
}

// SHA-256 of std/hash/sha2 commits through std/math/uints' byte tables
// (logderivlookup tables of 2^16 entries each): 613,831 constraints for an
// 8-byte message, a domain of 2^20. Two partitions prove through the
// stages and gnark's plonk.Verify accepts both. 9 to 12 minutes and 6 GiB
// on 2 cores (the setup of a 2^20 SRS is 4.5 of them), so the race
// detector's run and -short skip it:
//
//	go test -run TestSHA2CircuitProvesThroughTheStages -timeout 30m ./stages/plonk/
func TestSHA2CircuitProvesThroughTheStages(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("sha2's domain of 2^20 takes 9 to 12 minutes without the race detector: go test -run TestSHA2CircuitProvesThroughTheStages -timeout 30m ./stages/plonk/")
	}
	k := gadgetKey(t, "sha2", newSHA2(8))
	if k.Commitments() == 0 {
		t.Fatal("the std/hash/sha2 circuit makes no commitment")
	}
	ws := gadgetWitnesses(t, func(r *rand.Rand) frontend.Circuit { return assignSHA2(r, 8) }, 2, 13)
	for p, pr := range proveJob(t, k, ws) {
		if err := verify(t, k, ws[p], pr); err != nil {
			t.Errorf("partition %d: gnark's plonk.Verify: %v", p, err)
		}
	}
}
