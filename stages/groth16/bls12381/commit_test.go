package groth16_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/pedersen"
	gnarkg16 "github.com/consensys/gnark/backend/groth16"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/hash/sha2"
	"github.com/consensys/gnark/std/lookup/logderivlookup"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/math/emulated/emparams"
	"github.com/consensys/gnark/std/math/uints"
	"github.com/consensys/gnark/std/rangecheck"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	"github.com/prooflane/prooflane/stages/stagetest"
	"github.com/prooflane/prooflane/workloads"
)

// rangeCircuit range checks its private values with std/rangecheck,
// whose log-derivative argument commits to their limbs.
type rangeCircuit struct {
	V   [8]frontend.Variable
	Sum frontend.Variable `gnark:",public"`
}

func (c *rangeCircuit) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	var sum frontend.Variable = 0
	for i, v := range c.V {
		rc.Check(v, 8+7*i)
		sum = api.Add(sum, v)
	}
	api.AssertIsEqual(sum, c.Sum)
	return nil
}

func rangeAssignment(r *rand.Rand) frontend.Circuit {
	a := &rangeCircuit{}
	sum := new(big.Int)
	for i := range a.V {
		v := randBelow(r, new(big.Int).Lsh(big.NewInt(1), uint(8+7*i)))
		a.V[i] = v
		sum.Add(sum, v)
	}
	a.Sum = sum
	return a
}

// lookupCircuit looks values up in a table of private entries with
// std/lookup/logderivlookup.
type lookupCircuit struct {
	Table   [16]frontend.Variable
	Queries [6]frontend.Variable
	Results [6]frontend.Variable `gnark:",public"`
}

func (c *lookupCircuit) Define(api frontend.API) error {
	t := logderivlookup.New(api)
	for _, e := range c.Table {
		t.Insert(e)
	}
	for i, r := range t.Lookup(c.Queries[:]...) {
		api.AssertIsEqual(r, c.Results[i])
	}
	return nil
}

func lookupAssignment(r *rand.Rand) frontend.Circuit {
	a := &lookupCircuit{}
	var table [16]uint64
	for i := range table {
		table[i] = r.Uint64()
		a.Table[i] = table[i]
	}
	for i := range a.Queries {
		q := r.IntN(len(table))
		a.Queries[i], a.Results[i] = q, table[q]
	}
	return a
}

// emulatedCircuit multiplies secp256k1 base-field elements with
// std/math/emulated, whose deferred product checks and limb range checks
// commit.
type emulatedCircuit struct {
	X    [4]emulated.Element[emparams.Secp256k1Fp]
	Prod emulated.Element[emparams.Secp256k1Fp] `gnark:",public"`
}

func (c *emulatedCircuit) Define(api frontend.API) error {
	f, err := emulated.NewField[emparams.Secp256k1Fp](api)
	if err != nil {
		return err
	}
	p := &c.X[0]
	for i := 1; i < len(c.X); i++ {
		p = f.Mul(p, &c.X[i])
	}
	f.AssertIsEqual(p, &c.Prod)
	return nil
}

func emulatedAssignment(r *rand.Rand) frontend.Circuit {
	a := &emulatedCircuit{}
	mod := emparams.Secp256k1Fp{}.Modulus()
	prod := big.NewInt(1)
	for i := range a.X {
		x := randBelow(r, mod)
		a.X[i] = emulated.ValueOf[emparams.Secp256k1Fp](x)
		prod.Mul(prod, x).Mod(prod, mod)
	}
	a.Prod = emulated.ValueOf[emparams.Secp256k1Fp](prod)
	return a
}

// sha2Circuit hashes its private input with std/hash/sha2, whose byte
// operations look up tables (std/lookup/logderivlookup) and commit.
type sha2Circuit struct {
	In     [4]uints.U8
	Digest [32]uints.U8 `gnark:",public"`
}

func (c *sha2Circuit) Define(api frontend.API) error {
	h, err := sha2.New(api)
	if err != nil {
		return err
	}
	h.Write(c.In[:])
	u, err := uints.New[uints.U32](api)
	if err != nil {
		return err
	}
	for i, b := range h.Sum() {
		u.ByteAssertEq(b, c.Digest[i])
	}
	return nil
}

func sha2Assignment(r *rand.Rand) frontend.Circuit {
	var in [4]byte
	for i := range in {
		in[i] = byte(r.Uint32())
	}
	a := &sha2Circuit{}
	copy(a.In[:], uints.NewU8Array(in[:]))
	d := sha256.Sum256(in[:])
	copy(a.Digest[:], uints.NewU8Array(d[:]))
	return a
}

// twoCommitCircuit calls api.Commit twice, the second commitment over the
// first and a public input: two commitments, the second hashing a public
// input and the first's wire.
type twoCommitCircuit struct {
	X, Y frontend.Variable
	Z    frontend.Variable `gnark:",public"`
}

func (c *twoCommitCircuit) Define(api frontend.API) error {
	committer := api.(frontend.Committer)
	c1, err := committer.Commit(c.X, c.Y)
	if err != nil {
		return err
	}
	c2, err := committer.Commit(c1, c.Z, api.Mul(c.X, c.Y))
	if err != nil {
		return err
	}
	api.AssertIsDifferent(c1, 0)
	api.AssertIsDifferent(c2, c1)
	api.AssertIsEqual(api.Mul(c.X, c.Y), c.Z)
	return nil
}

func twoCommitAssignment(r *rand.Rand) frontend.Circuit {
	x, y := r.Uint32()|1, r.Uint32()|1
	return &twoCommitCircuit{X: x, Y: y, Z: uint64(x) * uint64(y)}
}

// randBelow is a number below n drawn from r (nearly uniform: 128 bits
// more than n, reduced).
func randBelow(r *rand.Rand, n *big.Int) *big.Int {
	b := make([]byte, (n.BitLen()+128+7)/8)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), n)
}

// committing is a test circuit that commits, and its assignments.
type committing struct {
	name       string
	circuit    frontend.Circuit
	assignment func(*rand.Rand) frontend.Circuit
	// gadget is what an error about its commitment names.
	gadget string
}

func committingCircuits() []committing {
	return []committing{
		{"rangecheck", &rangeCircuit{}, rangeAssignment, "std/rangecheck"},
		{"logderivlookup", &lookupCircuit{}, lookupAssignment, "std/lookup/logderivlookup"},
		{"emulated", &emulatedCircuit{}, emulatedAssignment, "std/math/emulated"},
		{"sha2", &sha2Circuit{}, sha2Assignment, "std/lookup/logderivlookup"},
		{"two-commits", &twoCommitCircuit{}, twoCommitAssignment, "std/math/bits"},
	}
}

var (
	commitKeysMu sync.Mutex
	commitKeys   = map[string]*keys.Set{}
)

// committedKeys compiles c and makes its keys with prooflane's setup
// (gnark's keys byte for byte: keys.TestCommittingKeysAreGnarksSetupByteForByte,
// several times faster on these cores), once per test binary.
func committedKeys(t testing.TB, c committing) *keys.Set {
	t.Helper()
	commitKeysMu.Lock()
	defer commitKeysMu.Unlock()
	if s, ok := commitKeys[c.name]; ok {
		return s
	}
	sys, err := keys.CompileCircuit(c.name, c.circuit)
	if err != nil {
		t.Fatal(err)
	}
	ci := sys.CommitmentInfo.(constraint.Groth16Commitments)
	sec, err := keys.RandomSecrets(len(ci))
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, _, err := keys.NewKeys(context.Background(), sys, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &keys.Set{Circuit: c.name, Size: sys.GetNbConstraints(), R1CS: sys, PK: pk, VK: vk}
	commitKeys[c.name] = s
	return s
}

// committedJob is a job of c with one assignment a partition, each
// from its own seed.
func committedJob(t testing.TB, c committing, set *keys.Set, partitions int, seed uint64) *groth16.Job {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 17))
	ws := make([]witness.Witness, partitions)
	for p := range ws {
		var err error
		if ws[p], err = workloads.Witness(c.assignment(r)); err != nil {
			t.Fatal(err)
		}
	}
	job, err := groth16.NewJob(c.name, set.R1CS, set.PK, set.VK, ws)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// verifyGnark checks proof with gnark's generic groth16.Verify against
// partition p's public witness.
func verifyGnark(t testing.TB, job *groth16.Job, p int, proof *g16.Proof) error {
	t.Helper()
	pub, err := job.Public(p)
	if err != nil {
		t.Fatal(err)
	}
	return gnarkg16.Verify(proof, job.VK, pub)
}

// Circuits built on each gadget that commits (std/rangecheck,
// std/lookup/logderivlookup, std/math/emulated, std/hash/sha2) and one
// with two commitments prove through the six stages, one partition per
// assignment and several partitions a job, and gnark verifies each proof.
func TestCommittingGadgetsProveThroughTheStages(t *testing.T) {
	for _, c := range committingCircuits() {
		t.Run(c.name, func(t *testing.T) {
			partitions := 3
			if c.name == "sha2" {
				// 157k constraints of byte tables whatever the input: a
				// setup of minutes on two cores, more under -race.
				if testing.Short() || raceEnabled {
					t.Skip("std/hash/sha2's system (157k constraints) takes minutes to set up on 2 cores: run without -short and -race")
				}
				partitions = 2
			}
			set := committedKeys(t, c)
			job := committedJob(t, c, set, partitions, 1)
			proofs, err := runSequential(t, job, cpuBackend(t, 2), nil)
			if err != nil {
				t.Fatal(err)
			}
			for p, proof := range proofs {
				if len(proof.Commitments) == 0 {
					t.Fatalf("partition %d: a proof without commitments", p)
				}
				if err := verifyGnark(t, job, p, proof); err != nil {
					t.Errorf("partition %d: %v", p, err)
				}
			}
			if err := verifyGnark(t, job, 0, proofs[1]); err == nil {
				t.Error("partition 1's proof verifies partition 0's public inputs")
			}
		})
	}
}

// A proof whose commitment or proof of knowledge was changed does not
// verify, with gnark's verifier or the epilogue's check.
func TestATamperedCommitmentOrProofOfKnowledgeIsRejected(t *testing.T) {
	c := committingCircuits()[0]
	set := committedKeys(t, c)
	job := committedJob(t, c, set, 1, 2)
	be := cpuBackend(t, 1)
	set2 := newStageSet(t, be, nil)
	values := map[stages.DataType]any{}
	for _, typ := range dagOrder[:len(dagOrder)-1] {
		f, _ := set2.reg.Lookup(typ)
		in := stages.NewInput(values)
		in.Job, in.Stage, in.Partition, in.Device = job, typ, 0, 0
		out, err := set2.built[typ].Run(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		values[f.Output] = out
	}
	g1 := values[groth16.TypeG1MSMs].(*groth16.G1MSMs)
	g2 := values[groth16.TypeG2MSM].(*groth16.G2MSM)
	var r, s fr.Element
	r.SetUint64(5)
	s.SetUint64(7)
	good := groth16.Assemble(job.PK, g1, g2, r, s)
	if err := verifyGnark(t, job, 0, good); err != nil {
		t.Fatalf("untampered proof: %v", err)
	}
	tamper := map[string]func(m *groth16.G1MSMs){
		"commitment doubled": func(m *groth16.G1MSMs) {
			var d curve.G1Affine
			d.Add(&m.Commitments[0], &m.Commitments[0])
			m.Commitments = []curve.G1Affine{d}
		},
		"proof of knowledge doubled": func(m *groth16.G1MSMs) { m.PoK.DoubleAssign() },
		"proof of knowledge zero":    func(m *groth16.G1MSMs) { m.PoK = curve.G1Jac{} },
	}
	for name, f := range tamper {
		t.Run(name, func(t *testing.T) {
			m := *g1
			m.Commitments = append([]curve.G1Affine(nil), g1.Commitments...)
			f(&m)
			if err := verifyGnark(t, job, 0, groth16.Assemble(job.PK, &m, g2, r, s)); err == nil {
				t.Fatal("gnark's verifier accepts it")
			}
			vals := map[stages.DataType]any{groth16.TypeG1MSMs: &m, groth16.TypeG2MSM: g2}
			in := stages.NewInput(vals)
			in.Job, in.Stage, in.Partition = job, groth16.TypeNameEpilogue, 0
			_, err := set2.built[groth16.TypeNameEpilogue].Run(context.Background(), in)
			if err == nil || !strings.Contains(err.Error(), "partition 0: proof does not verify") {
				t.Fatalf("epilogue: %v, want it to refuse the proof", err)
			}
		})
	}
}

// The shipped pipeline proves jobs of the built-in emulated circuit and
// of table lookups whose partitions each have a table of their own (the
// key's bases on the device, and on the host), two synthesis workers
// solving at once (std/lookup/logderivlookup caches a
// solve's table in the system's blueprint: each solve has its own). The
// commitments' MSMs run through the device contract (the threshold
// lowered: msm_commit) and the proofs of knowledge in gpu_compute
// (msm_pok), once a partition; gnark verifies every proof.
func TestCommittingJobsProveThroughTheShippedPipeline(t *testing.T) {
	defer groth16.CommitOnDeviceMin(groth16.CommitOnDeviceMin(1))
	const partitions = 4
	lookup := committingCircuits()[1]
	for _, tc := range []struct {
		name, bases string
		job         func(t *testing.T) *groth16.Job
	}{
		{"emulated", groth16.BasesDevice, func(t *testing.T) *groth16.Job {
			job, err := setupKeys(t, "emulated", 1<<10).NewJob(partitions, 3)
			if err != nil {
				t.Fatal(err)
			}
			return job
		}},
		{lookup.name, groth16.BasesDevice, func(t *testing.T) *groth16.Job {
			return committedJob(t, lookup, committedKeys(t, lookup), partitions, 5)
		}},
		{lookup.name, groth16.BasesHost, func(t *testing.T) *groth16.Job {
			return committedJob(t, lookup, committedKeys(t, lookup), partitions, 6)
		}},
	} {
		t.Run(tc.name+"/bases="+tc.bases, func(t *testing.T) {
			job := tc.job(t)
			p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"synth_workers": "2", "bases": tc.bases})
			if err != nil {
				t.Fatal(err)
			}
			rec := stagetest.NewRecorder()
			e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 2, Backend: cpuBackend(t, 2)})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close(context.Background())
			res, err := e.Run(context.Background(), runtime.Job{ID: tc.name, Partitions: partitions, Payload: job})
			if err != nil {
				t.Fatal(err)
			}
			for i, proof := range proofs(t, res) {
				if err := verifyGnark(t, job, i, proof); err != nil {
					t.Errorf("partition %d: %v", i, err)
				}
			}
			kernels := map[string]int{}
			for _, iv := range rec.Intervals(pl.KindKernel) {
				kernels[iv.Name]++
			}
			if want := partitions * len(job.VK.CommitmentKeys); kernels["msm_commit"] != want {
				t.Errorf("%d msm_commit kernel spans, want %d (one a commitment)", kernels["msm_commit"], want)
			}
			if kernels["msm_pok"] != partitions {
				t.Errorf("%d msm_pok kernel spans, want %d", kernels["msm_pok"], partitions)
			}
		})
	}
}

// When the device has no room for a commitment key's bases, synthesize
// computes the commitment on the host, says so on its span, and the
// proofs verify; nothing leaks.
func TestACommitmentWhoseBasesDoNotFitIsComputedOnTheHost(t *testing.T) {
	defer groth16.CommitOnDeviceMin(groth16.CommitOnDeviceMin(1))
	c := committingCircuits()[2]
	job := committedJob(t, c, committedKeys(t, c), 2, 8)
	mem := &fakeMem{Backend: cpuBackend(t, 1), vectors: 7, failLoad: func(key string) bool { return strings.Contains(key, "/commit.") }}
	p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := stagetest.NewRecorder()
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 1, Backend: mem})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "oom", Payload: job})
	if err != nil {
		t.Fatal(err)
	}
	e.Close(context.Background())
	for i, proof := range proofs(t, res) {
		if err := verifyGnark(t, job, i, proof); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
	}
	events := 0
	for _, s := range rec.Spans() {
		for _, ev := range s.Events() {
			if strings.HasPrefix(ev.Name, "commitment computed on the host") {
				events++
			}
		}
	}
	if events != 2 {
		t.Errorf("%d span events of a commitment computed on the host, want one a partition", events)
	}
	if err := mem.leaks(); err != nil {
		t.Error(err)
	}
}

// A hint that panics (gnark's gadgets' hints trust their inputs) fails
// its partition with an error naming the hint, instead of ending the
// process from the solver's goroutines.
func TestAPanickingHintFailsThePartitionNamingIt(t *testing.T) {
	sys, err := keys.CompileCircuit("panicky", &panickyCircuit{})
	if err != nil {
		t.Fatal(err)
	}
	var pk g16.ProvingKey
	var vk g16.VerifyingKey
	if err := g16.Setup(sys, &pk, &vk); err != nil {
		t.Fatal(err)
	}
	var ws []witness.Witness
	for _, x := range []int{0, 5} {
		w, err := workloads.Witness(&panickyCircuit{X: x, Y: x})
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	job, err := groth16.NewJob("panicky", sys, &pk, &vk, ws)
	if err != nil {
		t.Fatal(err)
	}
	job.SolverOptions = []solver.Option{solver.WithHints(panickyHint)}
	_, err = runSequential(t, job, cpuBackend(t, 1), nil)
	if err == nil || !strings.Contains(err.Error(), "partition 1") || !strings.Contains(err.Error(), "panickyHint panicked") {
		t.Fatalf("error %v, want partition 1 failed naming the hint", err)
	}
}

// panickyCircuit calls panickyHint on X.
type panickyCircuit struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *panickyCircuit) Define(api frontend.API) error {
	out, err := api.Compiler().NewHint(panickyHint, 1, c.X)
	if err != nil {
		return err
	}
	api.AssertIsEqual(out[0], c.Y)
	return nil
}

// panickyHint returns its input, and indexes out of range when it is
// not zero.
func panickyHint(_ *big.Int, in, out []*big.Int) error {
	if in[0].Sign() != 0 {
		var none []int
		_ = none[in[0].Int64()]
	}
	out[0].Set(in[0])
	return nil
}

// An error about a commitment (here its proving key changed in memory
// after the job was built) names the commitment and the gadgets whose
// wires it commits to.
func TestACommitmentErrorNamesTheGadget(t *testing.T) {
	c := committingCircuits()[0]
	set := committedKeys(t, c)
	job := committedJob(t, c, set, 1, 4)
	pk := *job.PK
	ck := pk.CommitmentKeys[0]
	ck.Basis = ck.Basis[:len(ck.Basis)-1]
	pk.CommitmentKeys = []pedersen.ProvingKey{ck}
	job.PK = &pk
	_, err := runSequential(t, job, cpuBackend(t, 1), nil)
	if err == nil || !strings.Contains(err.Error(), "commitment 0 of 1 (api.Commit by ") || !strings.Contains(err.Error(), c.gadget) {
		t.Fatalf("error %v, want it to name commitment 0 and %s", err, c.gadget)
	}
}

// A proof or verifying key read from a file could make gnark's verifier
// index past its slices (a commitment missing from the proof, a hashed
// input past the public ones): VerifyProof says so instead of panicking.
func TestVerifyProofRefusesCommitmentShapesGnarksVerifierWouldIndexPast(t *testing.T) {
	c := committingCircuits()[4] // two commitments, the second hashing a public input and the first
	set := committedKeys(t, c)
	job := committedJob(t, c, set, 1, 6)
	proofs, err := runSequential(t, job, cpuBackend(t, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := job.Public(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.VerifyProof(job.VK, proofs[0], pub); err != nil {
		t.Fatal(err)
	}
	short := *proofs[0]
	short.Commitments = short.Commitments[:1]
	if err := groth16.VerifyProof(job.VK, &short, pub); err == nil || !strings.Contains(err.Error(), "proof has 1 commitments, the verifying key 2") {
		t.Errorf("a proof short of a commitment: %v", err)
	}
	vk := *job.VK
	vk.PublicAndCommitmentCommitted = [][]int{{1}, {1, 7}}
	if err := groth16.VerifyProof(&vk, proofs[0], pub); err == nil || !strings.Contains(err.Error(), "commitment 1 hashes input 7") {
		t.Errorf("a verifying key hashing an input past the public ones: %v", err)
	}
}

// On a device that wants its scalars in canonical form, prep_msm converts
// the proof of knowledge's scalars with the others; the proofs verify.
func TestCommittingCircuitsProveOnACanonicalDevice(t *testing.T) {
	defer groth16.CommitOnDeviceMin(groth16.CommitOnDeviceMin(1))
	c := committingCircuits()[0]
	job := committedJob(t, c, committedKeys(t, c), 2, 9)
	proveAndVerify(t, job, stagetest.Canonical(cpuBackend(t, 1)), nil)
}

// Commitment info gnark's builder could not have written (a corrupt or
// hand-made system) is refused, naming the commitment or the wire, before
// gnark's setup or the stages index by it.
func TestMalformedCommitmentInfoIsRefused(t *testing.T) {
	c := committingCircuits()[4]
	set := committedKeys(t, c)
	ci := set.R1CS.CommitmentInfo.(constraint.Groth16Commitments)
	clone := func() constraint.Groth16Commitments {
		out := make(constraint.Groth16Commitments, len(ci))
		for i, x := range ci {
			out[i] = x
			out[i].PrivateCommitted = slices.Clone(x.PrivateCommitted)
			out[i].PublicAndCommitmentCommitted = slices.Clone(x.PublicAndCommitmentCommitted)
		}
		return out
	}
	nbWires := set.R1CS.GetNbInternalVariables() + set.R1CS.GetNbPublicVariables() + set.R1CS.GetNbSecretVariables()
	for _, e := range []struct {
		name string
		edit func(ci constraint.Groth16Commitments)
		want string
	}{
		{"commitment wire past the wires", func(ci constraint.Groth16Commitments) { ci[1].CommitmentIndex = nbWires },
			fmt.Sprintf("commitment 1 of 2: commitment wire %d is not a private wire", nbWires)},
		{"committed wires out of order", func(ci constraint.Groth16Commitments) {
			p := ci[0].PrivateCommitted
			p[0], p[1] = p[1], p[0]
		}, "commitment 0 of 2: committed wire"},
		{"a wire committed twice", func(ci constraint.Groth16Commitments) {
			ci[1].PrivateCommitted = append(ci[1].PrivateCommitted, ci[0].PrivateCommitted[0])
			slices.Sort(ci[1].PrivateCommitted)
		}, "is committed by commitment 0 and committed by commitment 1"},
		{"a hashed wire that is no earlier commitment's", func(ci constraint.Groth16Commitments) {
			last := len(ci[1].PublicAndCommitmentCommitted) - 1
			ci[1].PublicAndCommitmentCommitted[last] = ci[1].CommitmentIndex
		}, "is not an earlier commitment's wire"},
	} {
		sys := *set.R1CS
		bad := clone()
		e.edit(bad)
		sys.CommitmentInfo = bad
		err := groth16.CheckSupported("two-commits", &sys)
		if !errors.Is(err, groth16.ErrMalformedCommitments) || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s: %v, want %q", e.name, err, e.want)
		}
		if _, err := groth16.NewJob("two-commits", &sys, set.PK, set.VK, committedJob(t, c, set, 1, 1).Witnesses); !errors.Is(err, groth16.ErrMalformedCommitments) {
			t.Errorf("%s: NewJob: %v", e.name, err)
		}
	}
}
