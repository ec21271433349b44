package service

import (
	"context"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/pipelines"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
)

// corruptKeys sets up chain's key of each family at testSize in dir and
// rewrites it with content that is wrong but well formed, under a valid
// checksum (the cache's own Save): Groth16's A bases each moved by the
// generator, PLONK's second canonical SRS point.
func corruptKeys(t *testing.T, dir string) {
	t.Helper()
	_, _, g1, _ := curve.Generators()
	gc := keys.Cache{Dir: dir}
	s, err := gc.LoadOrSetup(context.Background(), testCircuit, testSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.PK.G1.A {
		s.PK.G1.A[i].Add(&s.PK.G1.A[i], &g1)
	}
	if err := gc.Save(s); err != nil {
		t.Fatal(err)
	}
	pc := plonk.Cache{Dir: dir}
	k, _, err := pc.LoadOrSetup(context.Background(), testCircuit, testSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	k.PK.Kzg.G1[1].Add(&k.PK.Kzg.G1[1], &g1)
	if err := pc.Save(k, testSize); err != nil {
		t.Fatal(err)
	}
}

// unchecked is the embedded pipeline name with its final stage's verify
// option off.
func unchecked(t *testing.T, name, final string) string {
	t.Helper()
	_, src, err := pipelines.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(string(src), "type: "+final+"\n", "type: "+final+"\n    config: {verify: false}\n", 1)
}

// A worker stores no proof that does not verify: with keys whose content
// is wrong, a job of either family fails, naming the partition, whether
// the final stage checks its proofs (the default) or the runner does
// (verify: false).
func TestJobOfACorruptKeyFailsNamingThePartition(t *testing.T) {
	h := newHarness(t, "")
	corruptKeys(t, h.keys)
	h.start(WorkerConfig{Name: "w1"})
	for _, spec := range []*pb.JobSpec{
		{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 1},
		{Pipeline: "plonk", Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 1},
		{PipelineYaml: unchecked(t, "groth16", "groth16.epilogue"), Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 1},
		{PipelineYaml: unchecked(t, "plonk", "plonk.batch_open"), Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 1},
	} {
		id := h.submit(spec, pb.Priority_PRIORITY_NORMAL)
		res, err := h.await(id)
		if err == nil || !strings.Contains(err.Error(), "failed: ") || !strings.Contains(err.Error(), "partition ") {
			t.Errorf("job of pipeline %q%.20q with a corrupt key: %v (proofs %v); want it failed naming the partition", spec.Pipeline, spec.PipelineYaml, err, res)
			continue
		}
		if st := h.status(id); st.State != pb.JobState_JOB_STATE_FAILED {
			t.Errorf("job %s: state %s, want failed", id, st.State)
		}
	}
}
