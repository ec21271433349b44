package workloads

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	bls12381 "github.com/consensys/gnark/constraint/bls12-381"
	bn254 "github.com/consensys/gnark/constraint/bn254"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
)

func compile(t *testing.T, inst Instance) constraint.ConstraintSystem {
	t.Helper()
	cs, err := frontend.Compile(inst.Curve().ScalarField(), r1cs.NewBuilder, inst.Circuit())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// commits names the shipped circuits that use gnark's commitments
// (api.Commit, through std/rangecheck and std/math/emulated).
var commits = map[string]bool{"emulated": true}

// On BN254 every shipped circuit compiles over BN254's field to the count
// Constraints says, and its seeded assignments, in BN254's field, satisfy
// it while the unsatisfied ones do not.
func TestShippedCircuitsOnBN254AreSatisfiedAndSized(t *testing.T) {
	for _, name := range Names() {
		inst, err := New(ecc.BN254, name, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		if inst.Curve() != ecc.BN254 {
			t.Fatalf("%s: instance of %s", name, inst.Curve())
		}
		cs := compile(t, inst)
		if cs.Field().Cmp(ecc.BN254.ScalarField()) != 0 {
			t.Fatalf("%s: compiled over another field", name)
		}
		if c, n := inst.Constraints(), cs.GetNbConstraints(); c != n {
			t.Errorf("%s: Constraints() is %d, the compiled system has %d", name, c, n)
		}
		w, err := WitnessOf(ecc.BN254, inst.Assignment(1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Solve(w); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		bad, err := WitnessOf(ecc.BN254, inst.Unsatisfied(1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Solve(bad); err == nil {
			t.Errorf("%s: the unsatisfied assignment solves", name)
		}
	}
	if _, err := New(ecc.BW6_761, "chain", 64); err == nil || !strings.Contains(err.Error(), "bw6_761") {
		t.Errorf("chain on bw6-761: %v", err)
	}
}

func TestShippedCircuitsAreSatisfiedCommitAsDocumentedAndSized(t *testing.T) {
	for _, name := range Names() {
		for _, size := range []int{1 << 10, 1 << 12} {
			inst, err := New(ecc.BLS12_381, name, size)
			if err != nil {
				t.Fatal(err)
			}
			cs := compile(t, inst)
			if ci, ok := cs.GetCommitments().(constraint.Groth16Commitments); !ok || (len(ci) != 0) != commits[name] {
				t.Errorf("%s/%d: %d commitment(s), want them: %v", name, size, len(ci), commits[name])
			}
			n := cs.GetNbConstraints()
			if n > size || n < size/2 {
				t.Errorf("%s/%d: %d constraints, want about %d and at most %d", name, size, n, size, size)
			}
			if c := inst.Constraints(); c != n {
				t.Errorf("%s/%d: Constraints() is %d, the compiled system has %d", name, size, c, n)
			}
			for seed := uint64(0); seed < 2; seed++ {
				w, err := Witness(inst.Assignment(seed))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := cs.Solve(w); err != nil {
					t.Errorf("%s/%d seed %d: %v", name, size, seed, err)
				}
			}
		}
	}
}

// Constraints, without compiling at the size, is the compiled count:
// chain and mimc at sizes of one step or hash more or less, sha256 at
// round counts inside a hash, at its end, and across hash boundaries.
func TestConstraintsIsTheCompiledCount(t *testing.T) {
	var insts []Instance
	for _, size := range []int{2, 3, 100, 1000} {
		inst, err := New(ecc.BLS12_381, "chain", size)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst)
	}
	for _, n := range []int{1, 2, 5} {
		insts = append(insts, mimcChain{onCurve{ecc.BLS12_381}, n})
	}
	for _, rounds := range []int{1, 17, 63, 64, 65, 128, 130, 192} {
		insts = append(insts, sha256Chain{onCurve{ecc.BLS12_381}, rounds})
	}
	for _, inst := range insts {
		if got, want := inst.Constraints(), compile(t, inst).GetNbConstraints(); got != want {
			t.Errorf("%#v: Constraints() %d, compiled %d", inst, got, want)
		}
	}
}

func TestUnsatisfiedWitnessFailsNamingAConstraint(t *testing.T) {
	for _, name := range Names() {
		inst, err := New(ecc.BLS12_381, name, 1<<8)
		if err != nil {
			t.Fatal(err)
		}
		cs := compile(t, inst)
		w, err := Witness(inst.Unsatisfied(7))
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.Solve(w)
		if err == nil || !strings.Contains(err.Error(), "constraint #") {
			t.Errorf("%s: solve error %v, want one naming the constraint", name, err)
		}
	}
}

func TestPartitionsGetDifferentWitnesses(t *testing.T) {
	for _, name := range Names() {
		inst, err := New(ecc.BLS12_381, name, 1<<8)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for p := 0; p < 4; p++ {
			w, err := Witness(inst.Assignment(PartitionSeed(1, p)))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := w.MarshalBinary()
			if seen[string(b)] {
				t.Errorf("%s: partition %d repeats a witness", name, p)
			}
			seen[string(b)] = true
		}
	}
}

// A partition's public witness is the public part of its full witness,
// and another partition's differs from it.
func TestPartitionPublicIsThePartitionsWitnessesPublicPart(t *testing.T) {
	for _, name := range Names() {
		inst, err := New(ecc.BLS12_381, name, 1<<8)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Witness(inst.Assignment(PartitionSeed(5, 2)))
		if err != nil {
			t.Fatal(err)
		}
		pub, err := w.Public()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := pub.MarshalBinary()
		for p, same := range map[int]bool{2: true, 3: false} {
			got, err := PartitionPublic(inst, 5, p)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := got.MarshalBinary()
			if (string(b) == string(want)) != same {
				t.Errorf("%s: partition %d's public witness equal to partition 2's: %v, want %v", name, p, !same, same)
			}
		}
	}
}

func TestSHA256NativeChainIsSHA256(t *testing.T) {
	h := [8]uint32{1, 2, 3, 4, 5, 6, 7, 0xdeadbeef}
	got := sha256ChainNative(h, 128)
	var b [32]byte
	for i, x := range h {
		binary.BigEndian.PutUint32(b[4*i:], x)
	}
	b = sha256.Sum256(b[:])
	b = sha256.Sum256(b[:])
	for i := range got {
		if want := binary.BigEndian.Uint32(b[4*i:]); got[i] != want {
			t.Fatalf("word %d: %08x, want %08x", i, got[i], want)
		}
	}
}

func TestSHA256CircuitFullRoundsMatchesNative(t *testing.T) {
	inst := sha256Chain{onCurve{ecc.BLS12_381}, 64 + 20}
	cs := compile(t, inst)
	w, err := Witness(inst.Assignment(3))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Solve(w); err != nil {
		t.Fatal(err)
	}
}

// circuitVia is inst's circuit written by the R1CS gadget or, viaAPI,
// over gnark's API.
func circuitVia(inst Instance, viaAPI bool) frontend.Circuit {
	switch c := inst.Circuit().(type) {
	case *sha256Circuit:
		c.viaAPI = viaAPI
		return c
	case *chainCircuit:
		c.viaAPI = viaAPI
		return c
	}
	panic(fmt.Sprintf("%T has no R1CS gadget", inst))
}

// The R1CS gadget writes into the constraint system directly, mirroring
// gnark's builder step by step; this holds it to the circuit written over
// the API, on both curves: the same constraints with the same
// coefficients, wire for wire, and the same coefficient table, for sha256
// across partial and whole hashes and for chain at a few lengths. The
// solver then finds a witness for both.
func TestTheR1CSGadgetWritesTheAPICircuit(t *testing.T) {
	for _, curve := range []ecc.ID{ecc.BLS12_381, ecc.BN254} {
		var insts []Instance
		for _, rounds := range []int{1, 2, 10, 64, 74, 148} {
			insts = append(insts, sha256Chain{onCurve{curve}, rounds})
		}
		for _, size := range []int{2, 3, 17, 1000} {
			inst, err := New(curve, "chain", size)
			if err != nil {
				t.Fatal(err)
			}
			insts = append(insts, inst)
		}
		for _, inst := range insts {
			gadgetMatchesAPI(t, inst)
		}
	}
}

// gadgetMatchesAPI compiles inst with the gadget and over the API and
// compares the two systems.
func gadgetMatchesAPI(t *testing.T, inst Instance) {
	t.Helper()
	curve := inst.Curve()
	compileR1CS := func(viaAPI bool) constraint.ConstraintSystem {
		c, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, circuitVia(inst, viaAPI))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	fast, ref := compileR1CS(false), compileR1CS(true)
	if fast.GetNbConstraints() != ref.GetNbConstraints() || fast.GetNbInternalVariables() != ref.GetNbInternalVariables() {
		t.Fatalf("%v %#v: %d constraints and %d internal wires, over the API %d and %d", curve, inst,
			fast.GetNbConstraints(), fast.GetNbInternalVariables(), ref.GetNbConstraints(), ref.GetNbInternalVariables())
	}
	f, r := partsOf(t, fast), partsOf(t, ref)
	if !reflect.DeepEqual(fast.(constraint.R1CS[constraint.U64]).GetR1Cs(), ref.(constraint.R1CS[constraint.U64]).GetR1Cs()) || !reflect.DeepEqual(f.coefficients, r.coefficients) {
		t.Fatalf("%v %#v: the constraints differ from the API circuit's", curve, inst)
	}
	// The solver's program too: the same blueprints, instructions and
	// levels. sha256's hints are its own (sha256Bits, not gnark's bit
	// decomposition), so its call data and hint table differ; chain's
	// whole system is the API's, to the byte of its file.
	if !reflect.DeepEqual(f.blueprints, r.blueprints) || !reflect.DeepEqual(f.instructions, r.instructions) || !reflect.DeepEqual(f.levels, r.levels) {
		t.Fatalf("%v %#v: the solver's instructions differ from the API circuit's", curve, inst)
	}
	if _, isChain := inst.(chain); isChain {
		var a, b bytes.Buffer
		if _, err := fast.WriteTo(&a); err != nil {
			t.Fatal(err)
		}
		if _, err := ref.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%v %#v: the system's file is %d bytes, over the API %d, and they differ", curve, inst, a.Len(), b.Len())
		}
	}
	w, err := WitnessOf(curve, inst.Assignment(5))
	if err != nil {
		t.Fatal(err)
	}
	for _, sys := range []constraint.ConstraintSystem{fast, ref} {
		if _, err := sys.Solve(w); err != nil {
			t.Fatalf("%v %#v: %v", curve, inst, err)
		}
	}
}

// systemParts are the parts of an R1CS the gadget writes, of either
// curve's type.
type systemParts struct{ coefficients, blueprints, instructions, levels any }

func partsOf(t *testing.T, cs constraint.ConstraintSystem) systemParts {
	switch s := cs.(type) {
	case *bls12381.R1CS:
		return systemParts{s.Coefficients, s.Blueprints, s.Instructions, s.Levels}
	case *bn254.R1CS:
		return systemParts{s.Coefficients, s.Blueprints, s.Instructions, s.Levels}
	}
	t.Fatalf("a %T", cs)
	return systemParts{}
}

// PLONK's builder compiles the circuits over the API (the R1CS gadget is
// R1CS's alone), and their systems are satisfied.
func TestCircuitsWithAGadgetCompileForPLONK(t *testing.T) {
	chain, err := New(ecc.BLS12_381, "chain", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, inst := range []Instance{sha256Chain{onCurve{ecc.BLS12_381}, 70}, chain} {
		sys, err := frontend.Compile(ecc.BLS12_381.ScalarField(), scs.NewBuilder, inst.Circuit())
		if err != nil {
			t.Fatalf("%#v: %v", inst, err)
		}
		w, err := Witness(inst.Assignment(2))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sys.Solve(w); err != nil {
			t.Fatalf("%#v: %v", inst, err)
		}
	}
}

func TestLookupSuggestsClosestName(t *testing.T) {
	_, err := Lookup("sha265")
	if err == nil || !strings.Contains(err.Error(), `did you mean "sha256"?`) {
		t.Fatalf("error %v", err)
	}
}

// The compile at 2^20 constraints of each circuit with an R1CS gadget
// (sha256: 2601 rounds; chain: 2^20-1 steps) on each curve, by the gadget
// and over the API, the same constraints, side by side:
//
//	go test -run '^$' -bench Compile -benchtime 3x ./workloads/
func BenchmarkCompile(b *testing.B) {
	for _, curve := range []ecc.ID{ecc.BLS12_381, ecc.BN254} {
		for _, name := range []string{"sha256", "chain"} {
			inst, err := New(curve, name, 1<<20)
			if err != nil {
				b.Fatal(err)
			}
			for _, viaAPI := range []bool{false, true} {
				way := "r1cs-gadget"
				if viaAPI {
					way = "api"
				}
				b.Run(curve.String()+"/"+name+"/"+way, func(b *testing.B) {
					for b.Loop() {
						if _, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, circuitVia(inst, viaAPI), frontend.WithCapacity(2<<20)); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// The sha256 bits hint of a count of inputs other than one (a constraint
// system read from a corrupt file) is an error, not a panic on the
// solver's goroutine.
func TestSHA256BitsHintOfNoInputIsAnError(t *testing.T) {
	out := []*big.Int{new(big.Int)}
	if err := sha256Bits(nil, nil, out); err == nil {
		t.Error("no input: no error")
	}
	if err := sha256Bits(nil, []*big.Int{big.NewInt(5)}, out); err != nil || out[0].Int64() != 1 {
		t.Errorf("bit 0 of 5: %v, %v", out[0], err)
	}
}

// The emulated circuit stays within its size, and within 3% and a
// product (about 220 constraints) of it, from 2^10 to 2^16, where
// std/rangecheck's limbs widen (its per-product cost falls). (2^18: 98.9%,
// 2^20: 98.9% when this was written.)
func TestEmulatedIsSizedAtLargerSizes(t *testing.T) {
	for _, size := range []int{1 << 10, 1 << 12, 1 << 14, 1 << 16} {
		inst, err := New(ecc.BLS12_381, "emulated", size)
		if err != nil {
			t.Fatal(err)
		}
		n := compile(t, inst).GetNbConstraints()
		if n > size || n < size-size*3/100-220 {
			t.Errorf("size %d: %d constraints", size, n)
		}
		if c := inst.Constraints(); c != n {
			t.Errorf("size %d: Constraints() is %d, the compiled system has %d", size, c, n)
		}
	}
}
