package service

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/plonk"

	"github.com/prooflane/prooflane/internal/usercircuit"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/groth16/bn254/keys"
	"github.com/prooflane/prooflane/workloads"
)

// A job of a built-in circuit on BN254 runs with either family: its
// proofs pass the family's checker and gnark's BN254 verifier against
// the key the worker set up, whose name says its curve; a job of a curve
// the service does not know is refused at submit.
func TestABN254JobOfEachFamilyPassesGnarksVerifier(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	for _, family := range []string{"groth16", "plonk"} {
		spec := &pb.JobSpec{Pipeline: family, Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 9, Curve: "bn254"}
		res, err := h.await(h.submit(spec, 0))
		if err != nil {
			t.Fatalf("%s: %v", family, err)
		}
		if !strings.Contains(res.Key, "-bn254/") {
			t.Errorf("%s: key %q does not name its curve", family, res.Key)
		}
		if err := (&Checker{KeysDir: h.keys}).Check(spec, res.Proofs); err != nil {
			t.Errorf("%s: checker: %v", family, err)
		}
		ws, err := workloads.Witnesses(ecc.BN254, testCircuit, testSize, 2, spec.Seed, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Proofs {
			pub, err := ws[p.Partition].Public()
			if err != nil {
				t.Fatal(err)
			}
			if family == "groth16" {
				vk, proof := bn254Groth16(t, h.keys, testCircuit, testSize, p)
				if err := groth16.Verify(proof, vk, pub); err != nil {
					t.Errorf("groth16 partition %d: gnark's verifier: %v", p.Partition, err)
				}
				continue
			}
			proof, vk := plonk.NewProof(ecc.BN254), plonk.NewVerifyingKey(ecc.BN254)
			if _, err := proof.ReadFrom(bytes.NewReader(p.Proof)); err != nil {
				t.Fatal(err)
			}
			if _, err := vk.ReadFrom(bytes.NewReader(res.VerifyingKey)); err != nil {
				t.Fatal(err)
			}
			if err := plonk.Verify(proof, vk, pub); err != nil {
				t.Errorf("plonk partition %d: gnark's verifier: %v", p.Partition, err)
			}
		}
	}
	_, err := h.client.Submit(t.Context(), connect.NewRequest(&pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Curve: "bn256"}}))
	if err == nil || !strings.Contains(err.Error(), `unknown curve "bn256"`) {
		t.Errorf("a job on bn256: %v", err)
	}
}

// A user's BN254 circuit, added with its curve, proves its witnesses with
// either family, with its own keys or the workers': gnark's BN254
// verifier accepts every proof; the circuit lists its curve, and a job
// naming the other curve is refused. Added as BLS12-381 it is refused,
// naming both curves.
func TestAUsersBN254CircuitProvesWithItsCurve(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	for _, system := range []string{"groth16", "plonk"} {
		for _, own := range []bool{true, false} {
			u := newUserCircuitOn(t, ecc.BN254, system, &userCubic{})
			if !own {
				u.curve = "BN254"
			}
			added, err := h.add(u, own)
			if err != nil {
				t.Fatalf("%s: add: %v", system, err)
			}
			if added.Circuit.Curve != "bn254" {
				t.Errorf("%s: circuit of curve %q", system, added.Circuit.Curve)
			}
			w, pub := cubicWitnessOn(t, ecc.BN254, 3, 4)
			spec := &pb.JobSpec{CircuitId: added.Circuit.CircuitId, Witnesses: []*pb.Witness{{Source: &pb.Witness_Data{Data: w}}}}
			res, err := h.await(h.submit(spec, 0))
			if err != nil {
				t.Fatalf("%s own keys %v: %v", system, own, err)
			}
			for _, p := range res.Proofs {
				if err := checkPublic(p, pub); err != nil {
					t.Error(err)
				}
				if own {
					if err := usercircuit.Verify(ecc.BN254, system, p.Proof, u.vkey, pub); err != nil {
						t.Errorf("%s: gnark's verifier: %v", system, err)
					}
				}
			}
			if !own { // the workers' keys: the checker verifies with the key cache's, with gnark's verifier
				if err := (&Checker{KeysDir: h.keys, Circuit: added.Circuit}).Check(spec, res.Proofs); err != nil {
					t.Errorf("%s: checker: %v", system, err)
				}
			}
			spec.Curve = "bls12-381"
			if _, err := h.client.Submit(t.Context(), connect.NewRequest(&pb.SubmitRequest{Spec: spec})); err == nil || !strings.Contains(err.Error(), "is a bn254 circuit") {
				t.Errorf("%s: a bls12-381 job of a bn254 circuit: %v", system, err)
			}
			if _, err := h.client.RemoveCircuit(t.Context(), connect.NewRequest(&pb.RemoveCircuitRequest{CircuitId: added.Circuit.CircuitId})); err != nil {
				t.Fatal(err)
			}
		}
		u := newUserCircuitOn(t, ecc.BN254, system, &userCubic{})
		u.curve = ""
		if _, err := h.add(u, false); err == nil || !strings.Contains(err.Error(), "BN254's scalar field, not BLS12-381's") {
			t.Errorf("%s: a bn254 system added as bls12-381: %v", system, err)
		}
	}
}

// Preload and Evict name a built-in circuit's key by its curve too: the
// workers load the BN254 key beside the BLS12-381 one and list each with
// its curve; evicting one leaves the other. An added circuit's key is
// named by its id alone: another curve beside it is refused.
func TestPreloadAndEvictNameTheKeysCurve(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	ctx := t.Context()
	keys := func() []*pb.KeyInfo {
		resp, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
		if err != nil || len(resp.Msg.Workers) != 1 {
			t.Fatalf("list: %v, %v", resp, err)
		}
		return resp.Msg.Workers[0].Keys
	}
	waitFor(t, "the worker's report", func() bool {
		resp, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
		return err == nil && len(resp.Msg.Workers) == 1
	})
	bls := &pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: testSize}
	bn := &pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Curve: "bn254"}
	for _, req := range []*pb.KeyRequest{bls, bn} {
		if resp, err := h.client.Preload(ctx, connect.NewRequest(req)); err != nil || len(resp.Msg.Errors) != 0 {
			t.Fatalf("preload %v: %v, %v", req, resp, err)
		}
	}
	var curves []string
	for _, k := range keys() {
		curves = append(curves, k.Curve)
	}
	if !slices.Equal(curves, []string{"", "bn254"}) {
		t.Errorf("keys after preloading both curves: %v", keys())
	}
	if resp, err := h.client.Evict(ctx, connect.NewRequest(bn)); err != nil || len(resp.Msg.Errors) != 0 {
		t.Fatalf("evict bn254: %v, %v", resp, err)
	}
	if k := keys(); len(k) != 1 || k[0].Curve != "" {
		t.Errorf("keys after evicting bn254's: %v", k)
	}
	if _, err := h.client.Preload(ctx, connect.NewRequest(&pb.KeyRequest{Circuit: testCircuit, Size: testSize, Curve: "bn256"})); connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), `"bn256"`) {
		t.Errorf("preload of an unknown curve: %v", err)
	}
	u := newUserCircuitOn(t, ecc.BN254, "groth16", &userCubic{})
	added, err := h.add(u, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.client.Preload(ctx, connect.NewRequest(&pb.KeyRequest{CircuitId: added.Circuit.CircuitId, Curve: "bls12-381"}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "is a bn254 circuit") {
		t.Errorf("preload of a bn254 circuit's key as bls12-381: %v", err)
	}
}

// bn254Groth16 is the key cache's verifying key of a built-in circuit on
// BN254 and a Groth16 proof of it, as gnark reads them.
func bn254Groth16(t *testing.T, keysDir, circuit string, size int, p *pb.Proof) (*groth16bn254.VerifyingKey, groth16.Proof) {
	t.Helper()
	vk, err := keys.Cache{Dir: keysDir}.LoadVK(circuit, size)
	if err != nil {
		t.Fatal(err)
	}
	proof := groth16.NewProof(ecc.BN254)
	if _, err := proof.ReadFrom(bytes.NewReader(p.Proof)); err != nil {
		t.Fatal(err)
	}
	return vk, proof
}
