package groth16_test

import (
	"context"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
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

// prepAgainstTheFilter runs synthesize and prep_msm of job's partition 0
// on st and checks the MSM inputs against filterWires (split: the ones
// listed); it returns them.
func prepAgainstTheFilter(t *testing.T, set *keys.Set, job *groth16.Job, st *stageSet, split bool) *groth16.MSMInputs {
	t.Helper()
	values := map[stages.DataType]any{}
	for _, typ := range dagOrder[:2] {
		out, err := st.run(job, typ, values)
		if err != nil {
			t.Fatal(err)
		}
		values[st.output(typ)] = out
	}
	got := values[groth16.TypeMSMInputs].(*groth16.MSMInputs)
	wires := got.Solution.Wires
	var want groth16.MSMInputs
	var za, zb, zk int
	want.A, want.OnesA, za = filterWires(wires, set.PK.InfinityA, split)
	want.B, want.OnesB, zb = filterWires(wires, set.PK.InfinityB, split)
	want.K, want.OnesK, zk = filterWires(wires[set.R1CS.GetNbPublicVariables():], nil, split)
	want.BMont, want.Zeros, want.Form = want.B, za+zb+zk, got.Form
	if err := sameMSMInputs(got, &want); err != nil {
		t.Fatal(err)
	}
	return got
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
					got := prepAgainstTheFilter(t, set, job, st, split)
					if split && len(got.OnesA)+len(got.OnesB)+len(got.OnesK) == 0 {
						t.Error("no scalar equal to one: the test does not cover the split")
					}
				})
			}
		}
	}
}

// unitsBackend's devices say their MSMs sum ones apart themselves, as
// cuda's do.
type unitsBackend struct{ device.Backend }

func (b unitsBackend) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	return unitsDevice{d}, err
}

type unitsDevice struct{ cdev.Device }

func (unitsDevice) SumsUnits() bool { return true }

// With split_ones on, a device that sums its MSMs' ones itself gets the
// ones as they are and no lists: the vectors are the unsplit filter's.
func TestPrepMSMLeavesTheOnesToADeviceThatSumsThem(t *testing.T) {
	set := setupKeys(t, "sha256", 1<<9)
	job, err := set.NewJob(1, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := prepAgainstTheFilter(t, set, job, newStageSet(t, unitsBackend{cpuBackend(t, 1)}, nil), false)
	ones := 0
	for i := range got.K {
		if got.K[i].IsOne() {
			ones++
		}
	}
	if ones == 0 {
		t.Error("no scalar equal to one: the test does not cover the ones")
	}
}

// The proofs verify when the ones stay in the vectors: the G1 MSMs on
// the device and the G2 MSM either there or on the host cores take them
// as any scalar, as the MSMs of a device that SumsUnits must.
func TestProofsWithTheOnesLeftToTheDeviceVerify(t *testing.T) {
	set := setupKeys(t, "sha256", 1<<9)
	for _, g2 := range []string{"device", "cpu"} {
		job, err := set.NewJob(3, 11)
		if err != nil {
			t.Fatal(err)
		}
		p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"g2_on": g2})
		if err != nil {
			t.Fatal(err)
		}
		e, err := runtime.NewEngine(p, runtime.Options{Devices: 1, Backend: unitsBackend{cpuBackend(t, 1)}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(context.Background(), runtime.Job{ID: "units-" + g2, Partitions: 3, Payload: job})
		if err != nil {
			t.Fatal(err)
		}
		for i, proof := range proofs(t, res) {
			if err := job.Verify(i, proof); err != nil {
				t.Errorf("g2_on %s, partition %d: %v", g2, i, err)
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
			p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"g2_on": "cpu", "synth_workers": "4"})
			if err != nil {
				t.Fatal(err)
			}
			e, err := runtime.NewEngine(p, runtime.Options{Devices: 2, Backend: cpuBackend(t, 2)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run(context.Background(), runtime.Job{ID: circuit, Partitions: partitions, Payload: job})
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
		})
	}
}

func TestPrepMSMRefusesASolutionWhoseWiresDoNotMatchTheKey(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	job, err := set.NewJob(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := newStageSet(t, cpuBackend(t, 1), nil)
	values := map[stages.DataType]any{}
	out, err := st.run(job, groth16.TypeNameSynthesize, values)
	if err != nil {
		t.Fatal(err)
	}
	sol := out.(*groth16.Solution)
	n := len(sol.Wires)
	for _, wires := range [][]fr.Element{sol.Wires[:n-1], append(slices.Clone(sol.Wires), fr.One())} {
		bad := *sol
		bad.Wires = wires
		values[groth16.TypeSolution] = &bad
		in := stages.NewInput(values)
		in.Job, in.Stage, in.Partition, in.Device = job, groth16.TypeNamePrepMSM, 1, 0
		_, err := st.built[groth16.TypeNamePrepMSM].Run(context.Background(), in)
		want := fmt.Sprintf("partition 1: the solution has %d wires, the proving key is for %d", len(wires), n)
		if err == nil || err.Error() != want {
			t.Errorf("%d wires: error %v, want %q", len(wires), err, want)
		}
	}
}
