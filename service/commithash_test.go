package service

import (
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	gnarksolidity "github.com/consensys/gnark/backend/solidity"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/workloads"
)

// A Groth16 job with commitment_hash keccak256 of a circuit that commits
// (emulated: std/math/emulated's api.Commit) makes proofs for gnark's
// Solidity verifier: gnark's verifier accepts each with its keccak256
// option and rejects it with the default hash; the checker checks with
// the spec's hash (and rejects the proofs under a spec without it). A
// hash that is none, or one the family does not take (PLONK's), is
// refused at submit naming the field.
func TestAJobsCommitmentHashIsTheOneItsProofsTake(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	const circuit, size = "emulated", 1 << 10
	spec := &pb.JobSpec{Pipeline: "groth16", Circuit: circuit, Size: size, Partitions: 2, Seed: 5, Curve: "bn254", CommitmentHash: "keccak256"}
	res, err := h.await(h.submit(spec, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Checker{KeysDir: h.keys}).Check(spec, res.Proofs); err != nil {
		t.Errorf("checker: %v", err)
	}
	rfc := &pb.JobSpec{Pipeline: "groth16", Circuit: circuit, Size: size, Partitions: 2, Seed: 5, Curve: "bn254"}
	if err := (&Checker{KeysDir: h.keys}).Check(rfc, res.Proofs); err == nil {
		t.Error("the checker accepts keccak256 proofs under a spec of the default hash")
	}
	ws, err := workloads.Witnesses(ecc.BN254, circuit, size, 2, spec.Seed, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Proofs {
		pub, err := ws[p.Partition].Public()
		if err != nil {
			t.Fatal(err)
		}
		vk, proof := bn254Groth16(t, h.keys, circuit, size, p)
		if err := groth16.Verify(proof, vk, pub, gnarksolidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
			t.Errorf("partition %d: gnark's verifier with keccak256: %v", p.Partition, err)
		}
		if err := groth16.Verify(proof, vk, pub); err == nil {
			t.Errorf("partition %d: gnark's verifier with its default hash accepts a keccak256 proof", p.Partition)
		}
	}
	for _, c := range []struct {
		spec *pb.JobSpec
		want string
	}{
		{&pb.JobSpec{Pipeline: "groth16", Circuit: circuit, Size: size, CommitmentHash: "sha3"}, `spec: commitment_hash: "sha3" is not a commitment hash`},
		{&pb.JobSpec{Pipeline: "plonk", Circuit: circuit, Size: size, CommitmentHash: "keccak256"}, `spec: commitment_hash "keccak256": pipeline "plonk" makes plonk proofs, which hash their commitments with rfc9380 only`},
	} {
		_, err := h.client.Submit(t.Context(), connect.NewRequest(&pb.SubmitRequest{Spec: c.spec}))
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.spec, err, c.want)
		}
	}
}
