package ccsfile

import (
	"reflect"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/constraint"
	bls12381 "github.com/consensys/gnark/constraint/bls12-381"
)

// edited decodes the test circuit called name, applies edit to it and
// returns it.
func edited(t testing.TB, name string, edit func(s *constraint.System, coeffs []fr.Element)) (constraint.ConstraintSystem, Kind) {
	t.Helper()
	tc := testCircuitNamed(t, name)
	sys, err := decode(tc.file, bls12_381, tc.kind)
	if err != nil {
		t.Fatal(err)
	}
	edit(system(sys), sys.(*bls12381.R1CS).Coefficients)
	return sys, tc.kind
}

// calldata returns the calldata of instruction i.
func calldata(s *constraint.System, i int) []uint32 {
	return s.CallData[s.Instructions[i].StartCallData:]
}

// What gnark's solver, setups or provers would index past the system's
// tables, or run out of order, is refused with an error naming the
// instruction, level, commitment or entry, and what is wrong. The
// systems are the test circuits' (plain/R1CS: a hint at instruction 4
// solving wires 8 to 15, in level 0 with instructions 0, 2 and 15;
// commit/R1CS: two commitments, the second committing to the first;
// commit/SparseR1CS: the same in PLONK; logderivlookup/SparseR1CS: two
// lookups of one table first), each edited one way.
func TestCheckSolvableRefuses(t *testing.T) {
	bn254 := ecc.BN254.ScalarField().Text(16)
	for _, c := range []struct {
		name, circuit string
		edit          func(s *constraint.System, coeffs []fr.Element)
		want          string
	}{
		// The system.
		{"another kind", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Type = constraint.SystemSparseR1CS },
			`holds a constraint system of type SparseR1CS, want R1CS`},
		{"another field", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.ScalarField = bn254 },
			`a constraint system over BN254's scalar field, not BLS12-381's`},
		{"a field of no curve", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.ScalarField = "2a" },
			`scalar field "2a", want BLS12-381's (73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001)`},
		{"a GKR sub-circuit", "plain/R1CS", func(s *constraint.System, _ []fr.Element) {
			f := reflect.ValueOf(&s.GkrInfo).Elem().FieldByName("Circuit")
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		}, `holds a GKR sub-circuit (gnark's std/gkrapi), which prooflane does not prove`},
		{"a standard coefficient changed", "plain/R1CS", func(_ *constraint.System, k []fr.Element) { k[1].SetUint64(2) },
			`coefficient 1 is 2, want 1`},
		{"a coefficient not reduced", "plain/R1CS", func(_ *constraint.System, k []fr.Element) {
			for i, w := range fr.Modulus().Bits() {
				k[5][i] = uint64(w)
			}
		}, `coefficient 5 is not reduced (not below BLS12-381's modulus)`},
		{"no constant wire", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Public = nil },
			`an R1CS without its constant wire (the first public one)`},
		{"no wires", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.Public, s.Secret, s.NbInternalVariables = nil, nil, 0
			s.Instructions, s.CallData, s.Levels, s.NbConstraints = nil, nil, nil, 0
			s.CommitmentInfo = constraint.PlonkCommitments{}
		}, `a constraint system without wires`},
		{"negative internal wires", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.NbInternalVariables = -1 },
			`2 public, 2 secret and -1 internal wires`},
		{"more internal wires than instructions solve", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.NbInternalVariables += 1000 },
			`declares 1014 internal wires, its instructions can solve 24`},
		{"an internal wire no level solves", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.NbInternalVariables++ },
			`its levels solve 18 of its 19 wires`},
		// Blueprints.
		{"an unknown blueprint", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.Blueprints = append(s.Blueprints, &constraint.BlueprintSparseR1CAdd[constraint.U32]{})
		}, `blueprint 5 is a *constraint.BlueprintSparseR1CAdd[github.com/consensys/gnark/constraint.U32], not one gnark's frontend emits into a system of kind SparseR1CS`},
		{"an R1CS's blueprint in a SparseR1CS", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.Blueprints = append(s.Blueprints, &constraint.BlueprintGenericR1C{})
		}, `blueprint 5 is a *constraint.BlueprintGenericR1C, not one gnark's frontend emits into a system of kind SparseR1CS`},
		{"a SparseR1CS's blueprint in an R1CS", "plain/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.Blueprints = append(s.Blueprints, &constraint.BlueprintSparseR1CMul[constraint.U64]{})
		}, `blueprint 2 is a *constraint.BlueprintSparseR1CMul[github.com/consensys/gnark/constraint.U64], not one gnark's frontend emits into a system of kind R1CS`},
		// Instructions and their calldata.
		{"a blueprint past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Instructions[3].BlueprintID = 7 },
			`instruction 3: blueprint 7 of 2`},
		{"calldata not where the previous instruction's ends", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Instructions[1].StartCallData++ },
			`instruction 1 (blueprint 1, *constraint.BlueprintGenericR1C): calldata at 11, want 10 (where the previous instruction's ends)`},
		{"calldata past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.CallData = s.CallData[:len(s.CallData)-1] },
			`instruction 16 (blueprint 1, *constraint.BlueprintGenericR1C): calldata of 16 words at 190 ends past the system's 205`},
		{"calldata after the last instruction's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.CallData = append(s.CallData, 0) },
			`calldata: 207 words, its instructions' end at 206`},
		{"a constraint's lengths", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[1] = 2 },
			`instruction 0 (blueprint 1, *constraint.BlueprintGenericR1C): a constraint's calldata of 10 words does not hold its terms`},
		{"a constraint numbered out of order", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Instructions[3].ConstraintOffset = 7 },
			`instruction 3 (blueprint 1, *constraint.BlueprintGenericR1C): numbered from constraint 7, want 3`},
		{"more constraints declared", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.NbConstraints++ },
			`declares 17 constraints, its instructions hold 16`},
		{"a constraint's wire past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[5] = 1000 },
			`instruction 0 (blueprint 1, *constraint.BlueprintGenericR1C): wire 1000 of 18`},
		{"a constraint's constant term", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[5] = constantWire },
			`instruction 0 (blueprint 1, *constraint.BlueprintGenericR1C): wire 4294967295 of 18`},
		{"a coefficient past the table", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[4] = 99 },
			`instruction 0 (blueprint 1, *constraint.BlueprintGenericR1C): coefficient 99 of 12`},
		{"a hint's inputs past its calldata", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 4)[2] = 5 },
			`instruction 4 (blueprint 0, *constraint.BlueprintGenericHint): an expression ends past its calldata`},
		{"a hint's outputs past the wires", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 4)[7] = 1000 },
			`instruction 4 (blueprint 0, *constraint.BlueprintGenericHint): a hint solving wires 8 to 1000, of 18`},
		{"a sparse constraint's wire past the system's", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[0] = 999 },
			`instruction 0 (blueprint 1, *constraint.BlueprintGenericSparseR1C[github.com/consensys/gnark/constraint.U64]): wire 999 of 9`},
		{"a commitment flag gnark does not write", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[8] = 3 },
			`instruction 0 (blueprint 1, *constraint.BlueprintGenericSparseR1C[github.com/consensys/gnark/constraint.U64]): a commitment flag of 3`},
		{"a lookup reading more entries than its table's", "logderivlookup/SparseR1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[1] = 99 },
			`instruction 0 (blueprint 5, *constraint.BlueprintLookupHint[github.com/consensys/gnark/constraint.U64]): a lookup reading the first 99 entries of a table of 8`},
		{"a lookup solving wires past the system's", "logderivlookup/SparseR1CS", func(s *constraint.System, _ []fr.Element) { s.Instructions[0].WireOffset = 1 << 30 },
			`instruction 0 (blueprint 5, *constraint.BlueprintLookupHint[github.com/consensys/gnark/constraint.U64]): a lookup solving wires 1073741824 to 1073741826, of 532`},
		{"a SparseR1CS's table entry of two terms", "logderivlookup/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.Blueprints[5].(*constraint.BlueprintLookupHint[constraint.U64]).EntriesCalldata[0] = 2
		}, `blueprint 5 (*constraint.BlueprintLookupHint[github.com/consensys/gnark/constraint.U64]): table entry 0: an expression of 2 terms, where the solver reads one`},
		// Levels.
		{"a level's instruction past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Levels[0][0] = 999 },
			`level 0: instruction 999 of 17`},
		{"an instruction in two levels", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Levels[2] = append(s.Levels[2], 0) },
			`level 2: instruction 0 is in an earlier level, or twice in this one`},
		{"an instruction in no level", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Levels[2] = s.Levels[2][:0] },
			`instruction 16 is in no level`},
		{"an instruction before what it reads", "plain/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.Levels[0], s.Levels[2] = append(s.Levels[0], s.Levels[2]...), nil
		}, `level 0: instruction 16 (blueprint 1, *constraint.BlueprintGenericR1C): a constraint with 3 terms of wires not yet solved, want at most one`},
		{"a wire solved by a zero coefficient", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 2)[6] = constraint.CoeffIdZero },
			`level 0: instruction 2 (blueprint 1, *constraint.BlueprintGenericR1C): a constraint solving wire 7 by a zero coefficient`},
		{"a wire solved by two instructions of a level", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 0)[9] = 8 },
			`level 0: wire 8 is solved by two of its instructions`},
		{"a wire solved already", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 4)[6] = 3 },
			`level 0: instruction 4 (blueprint 0, *constraint.BlueprintGenericHint): solves wire 3, solved already`},
		{"a sparse constraint before what it reads", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.Levels[1], s.Levels[2] = append(s.Levels[1], 9), slices.DeleteFunc(s.Levels[2], func(i uint32) bool { return i == 9 })
		}, `level 1: instruction 9 (blueprint 2, *constraint.BlueprintSparseR1CMul[github.com/consensys/gnark/constraint.U64]): reads wire 4, which no earlier level solves`},
		{"a lookup before its table's entries", "logderivlookup/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.Blueprints[5].(*constraint.BlueprintLookupHint[constraint.U64]).EntriesCalldata[2] = 500
		}, `level 0: instruction 0 (blueprint 5, *constraint.BlueprintLookupHint[github.com/consensys/gnark/constraint.U64]): a lookup reading table entry 0: reads wire 500, which no earlier level solves`},
		// Commitments.
		{"commitments of the other family", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.CommitmentInfo = constraint.PlonkCommitments{} },
			`its commitments are a constraint.PlonkCommitments, want a constraint.Groth16Commitments`},
		{"a commitment's wire a public one", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.Groth16Commitments)[0].CommitmentIndex = 1
		}, `commitment 0: its wire 1, want an internal one (2 to 11) after the previous commitment's`},
		{"more public wires committed than listed", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.Groth16Commitments)[0].NbPublicCommitted = 5
		}, `commitment 0: 5 public wires committed, of the 1 public and commitment wires it lists`},
		{"a commitment's wire committed that is not one", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.Groth16Commitments)[1].PublicAndCommitmentCommitted[0] = 6
		}, `commitment 1: commits to wire 6 as an earlier commitment's, which it is not`},
		{"a commitment's wire committed as a private one", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.Groth16Commitments)[1].PrivateCommitted = []int{5, 6}
		}, `commitment 1: commits to wire 5 as a private one, commitment 0's wire`},
		{"a private wire committed twice", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.Groth16Commitments)[1].PrivateCommitted = []int{4}
		}, `commitment 1: commits to private wire 4, which an earlier commitment commits to`},
		{"a commitment's hint of more inputs than it commits to", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.Groth16Commitments)[0].PrivateCommitted = []int{2, 3}
		}, `instruction 2 (blueprint 0, *constraint.BlueprintGenericHint): commitment 0's hint of 5 inputs, want 4`},
		{"a commitment's hint of no commitment's number", "commit/R1CS", func(s *constraint.System, _ []fr.Element) { calldata(s, 2)[4] = constraint.CoeffIdTwo },
			`instruction 2 (blueprint 0, *constraint.BlueprintGenericHint): a commitment's hint whose first input is not a constant naming one of the 2 commitments, each once`},
		{"a commitment without its hint", "commit/R1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo = s.CommitmentInfo.(constraint.Groth16Commitments)[:1]
		}, `1 commitment(s) and 2 hint(s) computing commitments, want one hint a commitment`},
		{"a commitment's constraint past the system's", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.PlonkCommitments)[0].CommitmentIndex = 99
		}, `commitment 0: its constraint 99, want one of the 12 after the previous commitment's`},
		{"committed constraints out of order", "commit/SparseR1CS", func(s *constraint.System, _ []fr.Element) {
			s.CommitmentInfo.(constraint.PlonkCommitments)[0].Committed = []int{1, 0, 2}
		}, `commitment 0: the constraints it commits to: 0 at 1, want increasing values from 0 to 12`},
		// Debug information.
		{"a constraint's debug entry past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.MDebug[0] = 5 },
			`constraint 0's debug entry 5 of 0`},
		{"a log entry's wire past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Logs[0].ToResolve[0][0].VID = 999 },
			`log entry 0: wire 999 of 18`},
		{"a log entry's stack frame past the system's", "plain/R1CS", func(s *constraint.System, _ []fr.Element) { s.Logs[0].Stack = append(s.Logs[0].Stack, 9999) },
			`log entry 0: stack frame 9999 of 0`},
	} {
		sys, kind := edited(t, c.circuit, c.edit)
		err := CheckSolvable(sys, kind)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\n\twant %s", c.name, err, c.want)
		}
	}
}
