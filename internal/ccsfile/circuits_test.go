package ccsfile

import (
	"bytes"
	"crypto/sha256"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/mimc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
	"github.com/consensys/gnark/logger"
	stdmimc "github.com/consensys/gnark/std/hash/mimc"
	"github.com/consensys/gnark/std/hash/sha2"
	"github.com/consensys/gnark/std/lookup/logderivlookup"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/math/emulated/emparams"
	"github.com/consensys/gnark/std/math/uints"
	"github.com/consensys/gnark/std/rangecheck"
)

func init() {
	// The solver logs every error it returns; the tests make thousands.
	logger.Disable()
}

// The circuits the tests compile: each std gadget a user's circuit is
// likely to use, with a satisfying assignment.

// plainCircuit is arithmetic over the API: products, a division, a
// bit decomposition (a hint), a selection, a log entry.
type plainCircuit struct {
	X, Y frontend.Variable
	Z    frontend.Variable `gnark:",public"`
}

func (c *plainCircuit) Define(api frontend.API) error {
	v := api.Add(api.Mul(c.X, c.X, c.Y), api.Div(c.X, c.Y), -3)
	bits := api.ToBinary(c.X, 8)
	v = api.Add(v, api.Select(bits[0], c.Y, 7))
	api.Println("x is", c.X)
	api.AssertIsDifferent(c.Y, 0)
	api.AssertIsEqual(v, c.Z)
	return nil
}

func plainAssignment() frontend.Circuit {
	var x, y, v, t fr.Element
	x.SetUint64(3)
	y.SetUint64(5)
	v.Mul(&x, &x).Mul(&v, &y)
	t.Div(&x, &y)
	v.Add(&v, &t)
	t.SetUint64(3)
	v.Sub(&v, &t).Add(&v, &y) // 3 is odd: bit 0 selects y
	return &plainCircuit{X: 3, Y: 5, Z: v.String()}
}

// rangeCircuit range-checks its inputs (std/rangecheck: a lookup
// argument under a commitment).
type rangeCircuit struct {
	X   [4]frontend.Variable
	Sum frontend.Variable `gnark:",public"`
}

func (c *rangeCircuit) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	for _, x := range c.X {
		rc.Check(x, 16)
	}
	api.AssertIsEqual(api.Add(c.X[0], c.X[1], c.X[2], c.X[3]), c.Sum)
	return nil
}

func rangeAssignment() frontend.Circuit {
	return &rangeCircuit{X: [4]frontend.Variable{1, 65535, 300, 4096}, Sum: 1 + 65535 + 300 + 4096}
}

// lookupCircuit looks values up in a table (std/lookup/logderivlookup).
type lookupCircuit struct {
	Entries [8]frontend.Variable
	Queries [4]frontend.Variable
	Results [4]frontend.Variable `gnark:",public"`
}

func (c *lookupCircuit) Define(api frontend.API) error {
	t := logderivlookup.New(api)
	for _, e := range c.Entries[:5] {
		t.Insert(e)
	}
	first := t.Lookup(c.Queries[:2]...)
	for _, e := range c.Entries[5:] {
		t.Insert(e)
	}
	got := append(first, t.Lookup(c.Queries[2:]...)...)
	for i := range got {
		api.AssertIsEqual(got[i], c.Results[i])
	}
	return nil
}

func lookupAssignment() frontend.Circuit {
	var a lookupCircuit
	for i := range a.Entries {
		a.Entries[i] = 1000 + 7*i
	}
	for i, q := range []int{4, 0, 7, 5} {
		a.Queries[i], a.Results[i] = q, 1000+7*q
	}
	return &a
}

// emulatedCircuit multiplies in a foreign field (std/math/emulated).
type emulatedCircuit struct {
	A, B emulated.Element[emparams.Secp256k1Fp]
	C    emulated.Element[emparams.Secp256k1Fp] `gnark:",public"`
}

func (c *emulatedCircuit) Define(api frontend.API) error {
	f, err := emulated.NewField[emparams.Secp256k1Fp](api)
	if err != nil {
		return err
	}
	f.AssertIsEqual(f.Mul(&c.A, &c.B), &c.C)
	return nil
}

func emulatedAssignment() frontend.Circuit {
	p := emparams.Secp256k1Fp{}.Modulus()
	a, _ := new(big.Int).SetString("7c2f6a3b1d9e8f0a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f21", 16)
	b, _ := new(big.Int).SetString("1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef", 16)
	prod := new(big.Int).Mul(a, b)
	prod.Mod(prod, p)
	return &emulatedCircuit{
		A: emulated.ValueOf[emparams.Secp256k1Fp](a),
		B: emulated.ValueOf[emparams.Secp256k1Fp](b),
		C: emulated.ValueOf[emparams.Secp256k1Fp](prod),
	}
}

// sha2Circuit hashes one block with std/hash/sha2 (byte lookups).
type sha2Circuit struct {
	In  [55]uints.U8
	Out [32]uints.U8 `gnark:",public"`
}

func (c *sha2Circuit) Define(api frontend.API) error {
	h, err := sha2.New(api)
	if err != nil {
		return err
	}
	h.Write(c.In[:])
	bapi, err := uints.NewBytes(api)
	if err != nil {
		return err
	}
	for i, b := range h.Sum() {
		bapi.AssertIsEqual(b, c.Out[i])
	}
	return nil
}

func sha2Assignment() frontend.Circuit {
	in := make([]byte, len(sha2Circuit{}.In))
	copy(in, "a user's circuit, hashed with sha2 in a single block")
	sum := sha256.Sum256(in)
	var a sha2Circuit
	copy(a.In[:], uints.NewU8Array(in))
	copy(a.Out[:], uints.NewU8Array(sum[:]))
	return &a
}

// mimcCircuit hashes with std/hash/mimc.
type mimcCircuit struct {
	In  [4]frontend.Variable
	Out frontend.Variable `gnark:",public"`
}

func (c *mimcCircuit) Define(api frontend.API) error {
	h, err := stdmimc.NewMiMC(api)
	if err != nil {
		return err
	}
	h.Write(c.In[:]...)
	api.AssertIsEqual(h.Sum(), c.Out)
	return nil
}

func mimcAssignment() frontend.Circuit {
	h := mimc.NewMiMC()
	var a mimcCircuit
	for i := range a.In {
		var e fr.Element
		e.SetUint64(uint64(11 * (i + 1)))
		b := e.Bytes()
		h.Write(b[:])
		a.In[i] = e.String()
	}
	var out fr.Element
	out.SetBytes(h.Sum(nil))
	a.Out = out.String()
	return &a
}

// commitCircuit calls api.Commit directly, twice, the second time on
// the first commitment.
type commitCircuit struct {
	X, Y frontend.Variable
	Z    frontend.Variable `gnark:",public"`
}

func (c *commitCircuit) Define(api frontend.API) error {
	committer := api.(frontend.Committer)
	first, err := committer.Commit(c.X, c.Y, c.Z)
	if err != nil {
		return err
	}
	second, err := committer.Commit(first, c.Y)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(api.Mul(first, second, c.X), 0)
	api.AssertIsEqual(api.Add(c.X, c.Y), c.Z)
	return nil
}

func commitAssignment() frontend.Circuit { return &commitCircuit{X: 20, Y: 22, Z: 42} }

// testCircuit is a circuit compiled with one builder.
type testCircuit struct {
	name       string
	kind       Kind
	circuit    frontend.Circuit
	assignment func() frontend.Circuit
	sys        constraint.ConstraintSystem
	file       []byte // its WriteTo
}

// circuitSpecs are the test circuits, each compiled with both builders.
var circuitSpecs = []struct {
	name       string
	circuit    func() frontend.Circuit
	assignment func() frontend.Circuit
}{
	{"plain", func() frontend.Circuit { return new(plainCircuit) }, plainAssignment},
	{"rangecheck", func() frontend.Circuit { return new(rangeCircuit) }, rangeAssignment},
	{"logderivlookup", func() frontend.Circuit { return new(lookupCircuit) }, lookupAssignment},
	{"emulated", func() frontend.Circuit { return new(emulatedCircuit) }, emulatedAssignment},
	{"sha2", func() frontend.Circuit { return new(sha2Circuit) }, sha2Assignment},
	{"mimc", func() frontend.Circuit { return new(mimcCircuit) }, mimcAssignment},
	{"commit", func() frontend.Circuit { return new(commitCircuit) }, commitAssignment},
}

var (
	compileMu sync.Mutex
	compiled  = map[string]*testCircuit{}
)

// testCircuits compiles every test circuit with both builders (once a
// test binary).
func testCircuits(t testing.TB) []*testCircuit {
	t.Helper()
	var all []*testCircuit
	for _, c := range circuitSpecs {
		for _, k := range []Kind{R1CS, SparseR1CS} {
			all = append(all, testCircuitNamed(t, c.name+"/"+k.String()))
		}
	}
	return all
}

// testCircuitNamed returns the test circuit called name ("plain/R1CS"),
// compiling it the first time.
func testCircuitNamed(t testing.TB, name string) *testCircuit {
	t.Helper()
	compileMu.Lock()
	defer compileMu.Unlock()
	if tc, ok := compiled[name]; ok {
		return tc
	}
	for _, c := range circuitSpecs {
		for _, k := range []Kind{R1CS, SparseR1CS} {
			if c.name+"/"+k.String() != name {
				continue
			}
			tc := &testCircuit{name: name, kind: k, circuit: c.circuit(), assignment: c.assignment}
			var err error
			if tc.sys, err = compile(tc.circuit, k); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := tc.sys.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			tc.file = b.Bytes()
			compiled[name] = tc
			return tc
		}
	}
	t.Fatalf("no test circuit %q", name)
	return nil
}

// compile compiles circuit with the builder of kind, over BLS12-381.
func compile(circuit frontend.Circuit, k Kind) (constraint.ConstraintSystem, error) {
	if k == SparseR1CS {
		return frontend.Compile(ecc.BLS12_381.ScalarField(), scs.NewBuilder, circuit)
	}
	return frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, circuit)
}

// validWitness is the full witness of tc's assignment.
func (tc *testCircuit) validWitness(t testing.TB) witness.Witness {
	t.Helper()
	w, err := frontend.NewWitness(tc.assignment(), ecc.BLS12_381.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// randomWitness is a full witness of random values for sys's inputs
// (an R1CS's constant wire is not one).
func randomWitness(t testing.TB, sys constraint.ConstraintSystem, r *rand.Rand) witness.Witness {
	t.Helper()
	public, secret := sys.GetNbPublicVariables(), sys.GetNbSecretVariables()
	if _, s, _ := fieldOf(sys); s.Type == constraint.SystemR1CS {
		public--
	}
	w, err := witness.New(ecc.BLS12_381.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	values := make(chan any, public+secret)
	for range public + secret {
		var e fr.Element
		if r.IntN(4) == 0 {
			e.SetUint64(r.Uint64N(256)) // small values reach further into hints and lookups
		} else {
			e.SetRandom()
		}
		values <- e
	}
	close(values)
	if err := w.Fill(public, secret, values); err != nil {
		t.Fatal(err)
	}
	return w
}
