package groth16_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// dagOrder is the six stages in an order that respects the DAG.
var dagOrder = []string{
	groth16.TypeNameSynthesize,
	groth16.TypeNamePrepMSM,
	groth16.TypeNameBG2MSM,
	groth16.TypeNameVRAMStage,
	groth16.TypeNameGPUCompute,
	groth16.TypeNameEpilogue,
}

// proveAndVerify runs job through the stages on be (runSequential), fails
// t on an error, and checks every partition's proof with gnark's verifier.
func proveAndVerify(t testing.TB, job *groth16.Job, be device.Backend, configure func(typ string, c stages.Config)) {
	t.Helper()
	proofs, err := runSequential(t, job, be, configure)
	if err != nil {
		t.Fatal(err)
	}
	for p, proof := range proofs {
		if err := job.Verify(p, proof); err != nil {
			t.Errorf("partition %d: %v", p, err)
		}
	}
}

// testHost lends a backend to stages started outside an engine.
type testHost struct{ be device.Backend }

func (h testHost) Backend() device.Backend { return h.be }
func (h testHost) Devices() int            { return len(h.be.Devices()) }

// startStage starts st, as an engine would, when it is a stages.Starter.
func startStage(t testing.TB, typ string, st stages.Stage, be device.Backend) {
	t.Helper()
	if s, ok := st.(stages.Starter); ok {
		if err := s.Start(context.Background(), testHost{be}); err != nil {
			t.Fatalf("%s: start: %v", typ, err)
		}
	}
}

// runSequential proves every partition of job on be by building each
// stage from its factory, starting it with be, and calling Run in DAG
// order, without the runtime.
func runSequential(t testing.TB, job *groth16.Job, be device.Backend, configure func(typ string, c stages.Config)) ([]*g16.Proof, error) {
	t.Helper()
	set := newStageSet(t, be, configure)
	built := set.built
	proofs := make([]*g16.Proof, len(job.Witnesses))
	for p := range proofs {
		values := map[stages.DataType]any{}
		for _, typ := range dagOrder {
			f, _ := set.reg.Lookup(typ)
			in := stages.NewInput(values)
			in.Job, in.Stage, in.Partition, in.Device, in.JobID = job, typ, p, p%len(be.Devices()), "test"
			out, err := built[typ].Run(context.Background(), in)
			if err != nil {
				return nil, fmt.Errorf("stage %q partition %d: %w", typ, p, err)
			}
			values[f.Output] = out
		}
		proofs[p] = values[groth16.TypeProof].(*g16.Proof)
	}
	return proofs, nil
}

var (
	keyMu    sync.Mutex
	keyCache = map[string]*keys.Set{}
)

// setupKeys runs the setup once per circuit and size for the whole test
// binary.
func setupKeys(t testing.TB, circuit string, size int) *keys.Set {
	t.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	k := fmt.Sprintf("%s-%d", circuit, size)
	if s, ok := keyCache[k]; ok {
		return s
	}
	s, err := keys.Setup(circuit, size)
	if err != nil {
		t.Fatal(err)
	}
	keyCache[k] = s
	return s
}

func cpuBackend(t testing.TB, devices int) device.Backend {
	t.Helper()
	b, err := cpu.New(devices)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestSequentialStagesProveEveryCircuitAndGnarkVerifies(t *testing.T) {
	for _, circuit := range []string{"chain", "sha256", "mimc"} {
		for _, split := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/split_ones=%v", circuit, split), func(t *testing.T) {
				set := setupKeys(t, circuit, 1<<9)
				be := cpuBackend(t, 2)
				job, err := set.NewJob(3, 42)
				if err != nil {
					t.Fatal(err)
				}
				proveAndVerify(t, job, be, func(typ string, c stages.Config) {
					if pc, ok := c.(*groth16.PrepConfig); ok {
						pc.SplitOnes = split
					}
				})
			})
		}
	}
}
