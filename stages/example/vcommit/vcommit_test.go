package vcommit_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/example/vcommit"
	"github.com/prooflane/prooflane/stages/sim"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// shipped parses the example's pipeline, vcommit.yaml, with a registry
// of the sim types and the example's.
func shipped(t *testing.T) *runtime.Pipeline {
	t.Helper()
	src, err := os.ReadFile("vcommit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := stages.NewRegistry().MustRegister(sim.Factories()...).MustRegister(vcommit.Factories()...)
	p, err := runtime.Parse("vcommit.yaml", src, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// cpuBackend is a CPU backend of n devices, closed when the test ends.
func cpuBackend(t *testing.T, n int) device.Backend {
	t.Helper()
	be, err := cpu.New(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

// newJob is a job of partitions vectors from seed under a new key of size
// bases.
func newJob(t *testing.T, size, partitions int, seed uint64) *vcommit.Job {
	t.Helper()
	key, err := vcommit.NewKey(size)
	if err != nil {
		t.Fatal(err)
	}
	job, err := vcommit.NewJob(key, partitions, seed)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// verifyEach decodes each partition's commitment and verifies it with
// gnark-crypto (Job.Verify recomputes the MSM).
func verifyEach(t *testing.T, job *vcommit.Job, proofs map[int][]byte) {
	t.Helper()
	if len(proofs) != job.Partitions {
		t.Fatalf("%d proofs, want %d", len(proofs), job.Partitions)
	}
	for i, b := range proofs {
		pt, err := vcommit.DecodeProof(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Verify(i, pt); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
	}
}

// prove runs the shipped vcommit pipeline on the CPU backend and returns
// each partition's commitment.
func prove(t *testing.T, job *vcommit.Job) map[int][]byte {
	t.Helper()
	return proveOn(t, cpuBackend(t, 2), job)
}

// proveOn runs the shipped vcommit pipeline on be's two devices.
func proveOn(t *testing.T, be device.Backend, job *vcommit.Job) map[int][]byte {
	t.Helper()
	e, err := runtime.NewEngine(shipped(t), runtime.Options{Devices: 2, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "vc", Partitions: job.Partitions, Payload: job})
	if cerr := e.Close(context.Background()); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]byte{}
	for _, r := range res.Partitions {
		c, ok := r.Outputs["commit"].(interface{ RawBytes() [96]byte })
		if !ok {
			t.Fatalf("partition %d: output %T", r.Index, r.Outputs["commit"])
		}
		b := c.RawBytes()
		out[r.Index] = b[:]
	}
	return out
}

func TestCommitmentsMadeOnTheCPUBackendVerifyAndTamperedOnesDoNot(t *testing.T) {
	job := newJob(t, 64, 3, 7)
	proofs := prove(t, job)
	verifyEach(t, job, proofs)
	for i, b := range proofs {
		// Another partition's commitment is not this one's.
		if pt, err := vcommit.DecodeProof(b); err != nil || job.Verify((i+1)%3, pt) == nil {
			t.Errorf("partition %d's commitment verifies as partition %d's (%v)", i, (i+1)%3, err)
		}
	}
	// A flipped byte is either no point or the wrong one.
	bad := bytes.Clone(proofs[0])
	bad[len(bad)-1] ^= 1
	if pt, err := vcommit.DecodeProof(bad); err == nil {
		if err := job.Verify(0, pt); err == nil {
			t.Error("a tampered commitment verifies")
		}
	}
	if _, err := vcommit.DecodeProof(proofs[0][:95]); err == nil {
		t.Error("a short proof decodes")
	}
	// Another key's job does not accept these commitments.
	other, _ := vcommit.NewKey(64)
	ojob, _ := vcommit.NewJob(other, 3, 7)
	pt, _ := vcommit.DecodeProof(proofs[0])
	if err := ojob.Verify(0, pt); err == nil {
		t.Error("a commitment verifies under another key")
	}
}

// startStage builds and starts the family's stage of type typ on be.
func startStage(t *testing.T, typ string, be device.Backend) stages.Stage {
	t.Helper()
	for _, f := range vcommit.Factories() {
		if f.Type != typ {
			continue
		}
		s, err := f.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.(stages.Starter).Start(context.Background(), stagetest.Host{B: be, N: 1}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Fatalf("no stage type %q", typ)
	return nil
}

// Both stages refuse to start without a backend and to run on a payload
// that is not a *Job, with errors naming the stage and partition; commit
// refuses a vector that does not fit the key.
func TestTheStagesRefuseNoBackendAForeignPayloadAndAVectorOfAnotherSize(t *testing.T) {
	be := cpuBackend(t, 1)
	for _, f := range vcommit.Factories() {
		s, err := f.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.(stages.Starter).Start(context.Background(), stagetest.Host{}); err == nil || !strings.Contains(err.Error(), "no device backend") {
			t.Errorf("%s: start without a backend: %v", f.Type, err)
		}
		s = startStage(t, f.Type, be)
		in := stages.NewInput(nil)
		in.Stage, in.Partition, in.Job = "st", 2, "not a job"
		if _, err := s.Run(context.Background(), in); err == nil || !strings.Contains(err.Error(), `stage "st" partition 2: job payload is string, want *vcommit.Job`) {
			t.Errorf("%s: run on a string payload: %v", f.Type, err)
		}
	}
	job := newJob(t, 8, 1, 1)
	commit := startStage(t, vcommit.TypeNameCommit, be)
	for name, values := range map[string]map[stages.DataType]any{
		"no vector":    nil,
		"a short one":  {vcommit.TypeScalars: &vcommit.Vector{Scalars: job.Scalars(0)[:7]}},
		"a nil vector": {vcommit.TypeScalars: (*vcommit.Vector)(nil)},
	} {
		in := stages.NewInput(values)
		in.Stage, in.Job = "commit", job
		if _, err := commit.Run(context.Background(), in); err == nil || !strings.Contains(err.Error(), `stage "commit"`) {
			t.Errorf("%s: %v, want an error naming the stage", name, err)
		}
	}
}

// The shipped pipeline derives a partition's vector on the host under
// cpu_bandwidth; the stage that holds the device's compute lock takes it
// as its input and holds no host lock.
func TestTheComputeLockedStageTakesItsVectorFromAHostStage(t *testing.T) {
	p := shipped(t)
	locks := func(s *runtime.Stage) (names []string) {
		for _, l := range s.Locks {
			names = append(names, l.Resource)
		}
		return names
	}
	var computed, hosted bool
	for _, s := range p.Stages {
		ls := locks(s)
		switch {
		case slices.Contains(ls, "gpu.{gpu}.compute"):
			computed = true
			if !slices.Contains(s.Factory().Inputs, vcommit.TypeScalars) || slices.Contains(ls, "cpu_bandwidth") {
				t.Errorf("stage %q holds the compute lock with locks %v and inputs %v: want the vector as input, no cpu_bandwidth", s.Name, ls, s.Factory().Inputs)
			}
		case s.Factory().Output == vcommit.TypeScalars:
			hosted = true
			if !slices.Equal(ls, []string{"cpu_bandwidth"}) || s.DeviceBusy {
				t.Errorf("stage %q derives the vectors with locks %v (busy %v): want cpu_bandwidth alone", s.Name, ls, s.DeviceBusy)
			}
		}
	}
	if !computed || !hosted {
		t.Errorf("compute-locked stage %v, host stage %v: want both", computed, hosted)
	}
}

// commit commits to the vector it is given, not to one it derives itself:
// handed another partition's vector, it returns that partition's
// commitment.
func TestCommitCommitsToTheVectorOfItsInput(t *testing.T) {
	job := newJob(t, 16, 2, 9)
	in := stages.NewInput(map[stages.DataType]any{vcommit.TypeScalars: &vcommit.Vector{Scalars: job.Scalars(1)}})
	in.Stage, in.Partition, in.Job = "commit", 0, job
	out, err := startStage(t, vcommit.TypeNameCommit, cpuBackend(t, 1)).Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	pt, ok := out.(*curve.G1Affine)
	if !ok {
		t.Fatalf("output %T", out)
	}
	if err := job.Verify(1, pt); err != nil {
		t.Errorf("the commitment to partition 1's vector: %v", err)
	}
}

// On a device that wants canonical scalars the pipeline's commitments
// still verify.
func TestCommitmentsMadeForACanonicalDeviceVerify(t *testing.T) {
	job := newJob(t, 32, 2, 3)
	verifyEach(t, job, proveOn(t, stagetest.Canonical(cpuBackend(t, 2)), job))
}
