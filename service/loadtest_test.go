package service

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

func TestLoadTestThroughALocalServiceVerifiesEveryProof(t *testing.T) {
	keysDir := t.TempDir()
	l, err := StartLocal(context.Background(), LocalConfig{DataDir: t.TempDir(), KeysDir: keysDir, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	check := &Checker{KeysDir: keysDir}
	rep, err := LoadTest(context.Background(), l.Client, LoadConfig{
		Jobs: 20, Concurrency: 4,
		Spec:   &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 300},
		Verify: check.Check,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 20 || rep.P50 > rep.P99 || rep.P99 > rep.Max || rep.JobsPerSecond <= 0 {
		t.Errorf("report %+v", rep)
	}
	// A checker that is given another seed's proofs refuses them.
	spec := &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 1, Seed: 1}
	resp, err := l.Client.Submit(context.Background(), connect.NewRequest(&pb.SubmitRequest{Spec: spec}))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, client: l.Client}
	res, err := h.await(resp.Msg.JobId)
	if err != nil {
		t.Fatal(err)
	}
	spec.Seed = 2
	if err := check.Check(spec, res.Proofs); err == nil {
		t.Error("another seed's proof passed the check")
	}
}
