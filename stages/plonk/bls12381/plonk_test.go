package plonk_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gnarkplonk "github.com/consensys/gnark/backend/plonk"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// keyOf compiles and sets up a shipped circuit once per test binary.
var keys sync.Map

type keyed struct {
	key  *plonk.Key
	inst workloads.Instance
}

func keyOf(t testing.TB, circuit string, size int) keyed {
	t.Helper()
	name := fmt.Sprintf("%s/%d", circuit, size)
	if k, ok := keys.Load(name); ok {
		return k.(keyed)
	}
	inst, err := workloads.New(ecc.BLS12_381, circuit, size)
	if err != nil {
		t.Fatal(err)
	}
	spr, err := plonk.CompileCircuit(circuit, inst.Circuit())
	if err != nil {
		t.Fatal(err)
	}
	k, err := plonk.UnsafeSetup(context.Background(), circuit, spr)
	if err != nil {
		t.Fatal(err)
	}
	kd := keyed{k, inst}
	keys.Store(name, kd)
	return kd
}

func witnesses(t testing.TB, inst workloads.Instance, partitions int, seed uint64, bad int) []witness.Witness {
	t.Helper()
	ws := make([]witness.Witness, partitions)
	for p := range ws {
		a := inst.Assignment(workloads.PartitionSeed(seed, p))
		if p == bad {
			a = inst.Unsatisfied(workloads.PartitionSeed(seed, p))
		}
		w, err := workloads.Witness(a)
		if err != nil {
			t.Fatal(err)
		}
		ws[p] = w
	}
	return ws
}

// prove runs an embedded pipeline on the CPU backend and returns each
// partition's proof.
func prove(t testing.TB, pipeline string, job *plonk.Job) (map[int]*gplonk.Proof, error) {
	t.Helper()
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	return proveOn(t, pipeline, job, be)
}

// proveJob proves ws with k on the plonk pipeline, failing the test on
// an error.
func proveJob(t testing.TB, k *plonk.Key, ws []witness.Witness) map[int]*gplonk.Proof {
	t.Helper()
	job, err := plonk.NewJob(k, ws)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := prove(t, "plonk", job)
	if err != nil {
		t.Fatal(err)
	}
	return proofs
}

// proveOn is prove on a backend of the caller's, which it closes.
func proveOn(t testing.TB, pipeline string, job *plonk.Job, be device.Backend) (map[int]*gplonk.Proof, error) {
	t.Helper()
	file, src, err := pipelines.Open(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Parse(file, src, builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	e, err := runtime.NewEngine(p, runtime.Options{Devices: 1, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "plonk", Partitions: job.Partitions(), Payload: job})
	if cerr := e.Close(context.Background()); err == nil && cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		return nil, err
	}
	out := map[int]*gplonk.Proof{}
	for _, r := range res.Partitions {
		pr, ok := r.Outputs["batch_open"].(*gplonk.Proof)
		if !ok {
			t.Fatalf("partition %d: batch_open output %T", r.Index, r.Outputs["batch_open"])
		}
		out[r.Index] = pr
	}
	return out, nil
}

// verify checks a proof with gnark's plonk.Verify against the partition's
// public witness.
func verify(t testing.TB, k *plonk.Key, w witness.Witness, proof *gplonk.Proof) error {
	t.Helper()
	pub, err := w.Public()
	if err != nil {
		t.Fatal(err)
	}
	return gnarkplonk.Verify(proof, k.VK, pub)
}

func TestShippedPipelinesProveEveryCircuitAndGnarkVerifies(t *testing.T) {
	for _, pipeline := range []string{"plonk", "plonk-single-lock"} {
		for _, c := range []struct {
			circuit string
			size    int
		}{{"chain", 200}, {"mimc", 300}, {"sha256", 2000}} {
			t.Run(pipeline+"/"+c.circuit, func(t *testing.T) {
				kd := keyOf(t, c.circuit, c.size)
				ws := witnesses(t, kd.inst, 2, 7, -1)
				job, err := plonk.NewJob(kd.key, ws)
				if err != nil {
					t.Fatal(err)
				}
				proofs, err := prove(t, pipeline, job)
				if err != nil {
					t.Fatal(err)
				}
				if len(proofs) != 2 {
					t.Fatalf("%d proofs, want 2", len(proofs))
				}
				for p, pr := range proofs {
					if err := verify(t, kd.key, ws[p], pr); err != nil {
						t.Errorf("partition %d: gnark's plonk.Verify: %v", p, err)
					}
				}
			})
		}
	}
}

// The smallest systems (fewer than 6 rows) take gnark's quotient domain of
// 8n, not 4n: 1/Z_H is then a polynomial of degree 7 in xⁿ.
func TestSmallestCircuitsProveWithTheQuotientOn8n(t *testing.T) {
	for _, size := range []int{2, 3} {
		kd := keyOf(t, "chain", size)
		ws := witnesses(t, kd.inst, 1, 2, -1)
		proofs := proveJob(t, kd.key, ws)
		if err := verify(t, kd.key, ws[0], proofs[0]); err != nil {
			t.Errorf("chain of size %d (domain %d): %v", size, kd.key.DomainSize(), err)
		}
	}
}

func TestTamperedProofAndWrongKeyAreRejected(t *testing.T) {
	kd := keyOf(t, "chain", 200)
	ws := witnesses(t, kd.inst, 1, 11, -1)
	proofs := proveJob(t, kd.key, ws)
	pr := proofs[0]
	if err := verify(t, kd.key, ws[0], pr); err != nil {
		t.Fatalf("untampered proof: %v", err)
	}
	tampered := *pr
	tampered.BatchedProof.ClaimedValues = append([]fr.Element(nil), pr.BatchedProof.ClaimedValues...)
	one := fr.One()
	tampered.BatchedProof.ClaimedValues[1].Add(&tampered.BatchedProof.ClaimedValues[1], &one)
	if err := verify(t, kd.key, ws[0], &tampered); err == nil {
		t.Error("a proof with a claimed value off by one verified")
	}
	swapped := *pr
	swapped.H[0], swapped.H[1] = pr.H[1], pr.H[0]
	if err := verify(t, kd.key, ws[0], &swapped); err == nil {
		t.Error("a proof with H1 and H2 swapped verified")
	}
	// The same circuit set up on another SRS (one read as a ceremony's
	// would be): its proofs verify, ours do not against its key.
	srs, err := kzg.NewSRS(uint64(kd.key.DomainSize())+3, big.NewInt(987654321))
	if err != nil {
		t.Fatal(err)
	}
	other, err := plonk.SetupSRS(context.Background(), "chain", kd.key.SPR, srs)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(t, other, ws[0], pr); err == nil {
		t.Error("a proof verified against another setup's key")
	}
	otherJob, err := plonk.NewJob(other, ws)
	if err != nil {
		t.Fatal(err)
	}
	otherProofs, err := prove(t, "plonk", otherJob)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(t, other, ws[0], otherProofs[0]); err != nil {
		t.Errorf("a proof made with a key from SetupSRS: %v", err)
	}
	if err := verify(t, kd.key, ws[0], otherProofs[0]); err == nil {
		t.Error("the other setup's proof verified against the first key")
	}
	wrongPub := witnesses(t, kd.inst, 2, 12, -1)[1]
	if err := verify(t, kd.key, wrongPub, pr); err == nil {
		t.Error("a proof verified against another witness's public inputs")
	}
}

func TestUnsatisfiedWitnessNamesPartitionAndConstraint(t *testing.T) {
	kd := keyOf(t, "chain", 200)
	ws := witnesses(t, kd.inst, 3, 5, 2)
	job, err := plonk.NewJob(kd.key, ws)
	if err != nil {
		t.Fatal(err)
	}
	_, err = prove(t, "plonk", job)
	if err == nil {
		t.Fatal("an unsatisfied witness proved")
	}
	for _, want := range []string{`circuit "chain" partition 2`, "constraint", "not satisfied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var se *runtime.StageError
	if !errors.As(err, &se) || se.Partition != 2 || se.Stage != "solve" {
		t.Errorf("error %v: want a runtime.StageError of stage solve, partition 2", err)
	}
}

// commitCircuit uses a BSB22 commitment (api.Commit) directly.
type commitCircuit struct {
	X, Y frontend.Variable
}

func (c *commitCircuit) Define(api frontend.API) error {
	cm, err := api.(frontend.Committer).Commit(c.X, c.Y)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(cm, 0)
	api.AssertIsEqual(api.Mul(c.X, c.X), c.Y)
	return nil
}

func TestCircuitCallingCommitProvesAndGnarkVerifies(t *testing.T) {
	spr, err := plonk.CompileCircuit("mine", &commitCircuit{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := plonk.UnsafeSetup(context.Background(), "mine", spr)
	if err != nil {
		t.Fatal(err)
	}
	if k.Commitments() != 1 {
		t.Fatalf("%d commitments, want 1", k.Commitments())
	}
	ws := make([]witness.Witness, 2)
	for p := range ws {
		if ws[p], err = workloads.Witness(&commitCircuit{X: p + 3, Y: (p + 3) * (p + 3)}); err != nil {
			t.Fatal(err)
		}
	}
	for p, pr := range proveJob(t, k, ws) {
		if err := verify(t, k, ws[p], pr); err != nil {
			t.Errorf("partition %d: gnark's plonk.Verify: %v", p, err)
		}
	}
}

// corruptKey is a fresh key of chain at size whose proving key's
// canonical SRS has its second point moved (a valid point, the wrong
// one): every commitment of a polynomial of degree 1 or more is then
// wrong, and no proof of it verifies.
func corruptKey(t testing.TB, size int) keyed {
	t.Helper()
	kd := keyOf(t, "chain", size)
	k, err := plonk.UnsafeSetup(context.Background(), "chain", kd.key.SPR)
	if err != nil {
		t.Fatal(err)
	}
	g := k.PK.Kzg.G1[0]
	k.PK.Kzg.G1[1].Add(&k.PK.Kzg.G1[1], &g)
	return keyed{k, kd.inst}
}

// batch_open checks each proof with gnark's verifier (verify: true, the
// default): a key whose content is wrong fails the partition, naming it,
// instead of returning a proof that does not verify; with verify: false
// the same proofs come out, and gnark's verifier refuses them.
func TestBatchOpenRefusesAProofThatDoesNotVerify(t *testing.T) {
	kd := corruptKey(t, 200)
	ws := witnesses(t, kd.inst, 2, 3, -1)
	job, err := plonk.NewJob(kd.key, ws)
	if err != nil {
		t.Fatal(err)
	}
	_, err = prove(t, "plonk", job)
	if err == nil || !strings.Contains(err.Error(), `stage "batch_open" partition `) || !strings.Contains(err.Error(), "proof does not verify") {
		t.Fatalf("proving with a corrupt key: %v, want batch_open's refusal naming the partition", err)
	}

	file, src, err := pipelines.Open("plonk")
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(src), "type: plonk.batch_open\n", "type: plonk.batch_open\n    config: {verify: false}\n", 1)
	p, err := runtime.Parse(file, []byte(off), builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	e, err := runtime.NewEngine(p, runtime.Options{Devices: 1, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	res, err := e.Run(context.Background(), runtime.Job{ID: "unchecked", Partitions: 2, Payload: job})
	if err != nil {
		t.Fatalf("verify: false: %v", err)
	}
	for _, r := range res.Partitions {
		if err := verify(t, kd.key, ws[r.Index], r.Outputs["batch_open"].(*gplonk.Proof)); err == nil {
			t.Errorf("partition %d: the corrupt key's proof verified", r.Index)
		}
	}
}

// BenchmarkVerify is what batch_open's verify adds to each proof: gnark's
// PLONK verifier on one proof of chain at each size.
func BenchmarkVerify(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprintf("chain-%d", size), func(b *testing.B) {
			kd := keyOf(b, "chain", size)
			ws := witnesses(b, kd.inst, 1, 1, -1)
			proofs := proveJob(b, kd.key, ws)
			pub, err := ws[0].Public()
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if err := gnarkplonk.Verify(proofs[0], kd.key.VK, pub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// otherStateful is a solver blueprint with state that is not a lookup
// table's.
type otherStateful struct {
	*constraint.BlueprintLookupHint[constraint.U64]
}

// What the stages cannot prove is refused naming the circuit, the
// commitment or blueprint and the cause, wrapping plonk.ErrUnsupported.
func TestUnsupportedSystemsAreRefusedNamingTheCause(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(spr *cs.SparseR1CS)
		want   string
	}{
		{"a stateful blueprint", func(spr *cs.SparseR1CS) {
			spr.Blueprints = append(spr.Blueprints, otherStateful{})
		}, "solver blueprint plonk_test.otherStateful keeps state while solving"},
		{"a committed row outside", func(spr *cs.SparseR1CS) {
			ci := spr.CommitmentInfo.(constraint.PlonkCommitments)
			ci[0].Committed = append(slices.Clone(ci[0].Committed), spr.GetNbConstraints())
		}, "BSB22 commitment 0 of 1 (api.Commit): committed row"},
		{"a committed row at the commitment's", func(spr *cs.SparseR1CS) {
			ci := spr.CommitmentInfo.(constraint.PlonkCommitments)
			ci[0].Committed = []int{ci[0].CommitmentIndex}
		}, "is the commitment row or the last constraint"},
		{"groth16's commitment info", func(spr *cs.SparseR1CS) {
			spr.CommitmentInfo = constraint.Groth16Commitments{}
		}, "commitment info of type constraint.Groth16Commitments"},
	} {
		spr, err := plonk.CompileCircuit("mine", &commitCircuit{})
		if err != nil {
			t.Fatal(err)
		}
		c.change(spr)
		err = plonk.CheckSupported("mine", spr)
		if !errors.Is(err, plonk.ErrUnsupported) || !strings.Contains(err.Error(), `circuit "mine"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrUnsupported naming the circuit and %q", c.name, err, c.want)
		}
		if _, err := plonk.UnsafeSetup(context.Background(), "mine", spr); !errors.Is(err, plonk.ErrUnsupported) {
			t.Errorf("%s: the setup ran: %v", c.name, err)
		}
	}
}
