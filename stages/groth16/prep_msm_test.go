package groth16_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/groth16"
)

// filterWires is prep_msm's contract written out wire by wire: the
// scalars of the wires whose base is not infinity (skip may be nil),
// zeros and (with split) ones written as zero, the ones' indices listed.
func filterWires(wires []fr.Element, skip []bool, split bool) (v []fr.Element, ones []int32, zeros int) {
	for i := range wires {
		if skip != nil && skip[i] {
			continue
		}
		w := wires[i]
		switch {
		case w.IsZero():
			zeros++
		case split && w.IsOne():
			ones = append(ones, int32(len(v)))
			w = fr.Element{}
		}
		v = append(v, w)
	}
	return v, ones, zeros
}

// matchesFilter reports how got differs from filterWires over its
// solution's wires, or nil.
func matchesFilter(got *groth16.MSMInputs, pk *g16.ProvingKey, nbPublic int, split bool) error {
	wires := got.Solution.Wires
	var want groth16.MSMInputs
	var za, zb, zk int
	want.A, want.OnesA, za = filterWires(wires, pk.InfinityA, split)
	want.B, want.OnesB, zb = filterWires(wires, pk.InfinityB, split)
	want.K, want.OnesK, zk = filterWires(wires[nbPublic:], nil, split)
	want.BMont, want.Zeros, want.Form = want.B, za+zb+zk, got.Form
	return sameMSMInputs(got, &want)
}

func TestPrepMSMScalarsMatchTheWireByWireFilterOverAnyChunking(t *testing.T) {
	for _, circuit := range []string{"chain", "sha256", "mimc"} {
		set := setupKeys(t, circuit, 1<<9)
		if !slices.Contains(set.PK.InfinityA, true) && !slices.Contains(set.PK.InfinityB, true) {
			t.Logf("%s: no base at infinity", circuit)
		}
		for _, chunk := range []int{1, 7, 64, 1 << 14} {
			for _, split := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/chunk=%d/split_ones=%v", circuit, chunk, split), func(t *testing.T) {
					job, err := set.NewJob(1, 3)
					if err != nil {
						t.Fatal(err)
					}
					groth16.UsePrepChunk(job, chunk)
					st := newStageSet(t, cpuBackend(t, 1), func(typ string, c stages.Config) {
						if pc, ok := c.(*groth16.PrepConfig); ok {
							pc.SplitOnes = split
						}
					})
					values := map[stages.DataType]any{}
					for _, typ := range dagOrder[:2] {
						out, err := st.run(job, typ, values)
						if err != nil {
							t.Fatal(err)
						}
						values[st.output(typ)] = out
					}
					got := values[groth16.TypeMSMInputs].(*groth16.MSMInputs)
					if err := matchesFilter(got, set.PK, set.R1CS.GetNbPublicVariables(), split); err != nil {
						t.Fatal(err)
					}
					if split && len(got.OnesA)+len(got.OnesB)+len(got.OnesK) == 0 {
						t.Error("no scalar equal to one: the test does not cover the split")
					}
				})
			}
		}
	}
}

func TestPrepMSMPartitionsInFlightTogetherAllVerify(t *testing.T) {
	const partitions = 12
	for _, circuit := range []string{"chain", "sha256"} {
		t.Run(circuit, func(t *testing.T) {
			set := setupKeys(t, circuit, 1<<9)
			job, err := set.NewJob(partitions, 7)
			if err != nil {
				t.Fatal(err)
			}
			// Chunks of 5 wires: every partition's prep_msm runs over
			// many chunks on every core, with the other partitions'.
			groth16.UsePrepChunk(job, 5)
			p, err := runtime.Load("../../pipelines/groth16.yaml", registry(t), map[string]string{"g2_on": "cpu", "synth_workers": "4"})
			if err != nil {
				t.Fatal(err)
			}
			e, err := runtime.NewEngine(p, runtime.Options{Devices: 2, Backend: cpuBackend(t, 2)})
			if err != nil {
				t.Fatal(err)
			}
			// Twice: the second run's partitions take the vectors the
			// first run's gave back, while each other's are in flight.
			for run := 0; run < 2; run++ {
				if run == 1 {
					collectUntil(t, "the first run's vectors back in the pool", func() bool {
						free, _ := groth16.PooledVectors(job)
						return free > 0
					})
				}
				proveAllAndCrossCheck(t, e, job, partitions)
			}
			if _, reused := groth16.PooledVectors(job); reused == 0 {
				t.Error("no vector set reused in the second run")
			}
		})
	}
}

// collectUntil runs garbage collections until done holds (cleanups run
// after a collection, on their own goroutine), failing t if it never does.
func collectUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if done() {
			return
		}
		goruntime.GC()
		goruntime.Gosched()
	}
	t.Fatalf("%s: not after 1000 garbage collections", what)
}

func TestPrepMSMReusesAPartitionsVectorsOnlyOnceItIsGoneAndRewritesThemWhole(t *testing.T) {
	set := setupKeys(t, "sha256", 1<<9)
	job, err := set.NewJob(3, 11)
	if err != nil {
		t.Fatal(err)
	}
	st := newStageSet(t, cpuBackend(t, 1), nil)
	prep := func(p int) *groth16.MSMInputs {
		t.Helper()
		values := map[stages.DataType]any{}
		for _, typ := range dagOrder[:2] {
			in := stages.NewInput(values)
			in.Job, in.Stage, in.Partition, in.JobID = job, typ, p, "test"
			out, err := st.built[typ].Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			values[st.output(typ)] = out
		}
		return values[groth16.TypeMSMInputs].(*groth16.MSMInputs)
	}
	nbPublic := set.R1CS.GetNbPublicVariables()

	// Partition 0's inputs are held: partition 1 gets other vectors,
	// however many collections run in between, and 0's are untouched.
	mi0 := prep(0)
	k0 := slices.Clone(mi0.K)
	for i := 0; i < 3; i++ {
		goruntime.GC()
	}
	mi1 := prep(1)
	if &mi1.A[0] == &mi0.A[0] || &mi1.B[0] == &mi0.B[0] || &mi1.K[0] == &mi0.K[0] {
		t.Fatal("partition 1 was handed the vectors of partition 0, which is still held")
	}
	if !slices.Equal(mi0.K, k0) {
		t.Fatal("partition 0's scalars changed under partition 1's prep_msm")
	}
	if slices.Equal(mi0.K, mi1.K) {
		t.Fatal("partitions 0 and 1 have the same scalars: the test cannot tell them apart")
	}
	for p, mi := range []*groth16.MSMInputs{mi0, mi1} {
		if err := matchesFilter(mi, set.PK, nbPublic, true); err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
	}

	// Once partition 0's inputs are gone, their vectors come back and
	// partition 2 gets them, stale scalars and all: every one is
	// rewritten. (Poisoned first, so that a scalar left unwritten shows
	// even where partitions 0 and 2 agree.)
	for _, v := range [][]fr.Element{mi0.A, mi0.B, mi0.K} {
		for i := range v {
			v[i].SetUint64(uint64(i) + 2)
		}
	}
	mi0 = nil
	collectUntil(t, "partition 0's vectors back in the pool", func() bool {
		free, _ := groth16.PooledVectors(job)
		return free > 0
	})
	mi2 := prep(2)
	if _, reused := groth16.PooledVectors(job); reused != 1 {
		t.Fatalf("%d vector sets reused, want 1", reused)
	}
	if err := matchesFilter(mi2, set.PK, nbPublic, true); err != nil {
		t.Fatalf("partition 2 on recycled vectors: %v", err)
	}
	if err := matchesFilter(mi1, set.PK, nbPublic, true); err != nil {
		t.Fatalf("partition 1 after partition 2: %v", err)
	}
}

// proveAllAndCrossCheck runs job's partitions on e and checks every proof
// with gnark's verifier, and that none verifies its neighbour's statement.
func proveAllAndCrossCheck(t *testing.T, e *runtime.Engine, job *groth16.Job, partitions int) {
	t.Helper()
	res, err := e.Run(context.Background(), runtime.Job{ID: job.Circuit, Partitions: partitions, Payload: job})
	if err != nil {
		t.Fatal(err)
	}
	ps := proofs(t, res)
	if len(ps) != partitions {
		t.Fatalf("%d proofs, want %d", len(ps), partitions)
	}
	for i, proof := range ps {
		if err := job.Verify(i, proof); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
		// A proof of another partition's statement must not
		// verify: scalars crossed between partitions would.
		if i > 0 {
			if err := job.Verify(i-1, proof); err == nil {
				t.Errorf("partition %d's proof verifies partition %d", i, i-1)
			}
		}
	}
}
