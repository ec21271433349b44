package groth16_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// corruptKeyJob is a job of partitions partitions of chain at 2^8 whose
// proving key has one K base moved by the generator: in memory, past any
// checksum of the file it came from. Every proof it makes is invalid.
func corruptKeyJob(t *testing.T, partitions int) *groth16.Job {
	t.Helper()
	set := setupKeys(t, "chain", 1<<8)
	pk := *set.PK // the cached set is shared: change a copy
	pk.G1.K = slices.Clone(pk.G1.K)
	_, _, g1, _ := curve.Generators()
	last := &pk.G1.K[len(pk.G1.K)-1]
	last.Add(last, &g1)
	ws, err := set.Witnesses(partitions, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	job, err := groth16.NewJob("chain", set.R1CS, &pk, set.VK, ws)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// A proving key corrupted in memory makes proofs that do not verify; the
// epilogue checks each one by default, so the job fails naming the stage
// and the partition, and no proof comes out of it.
func TestEpilogueRefusesAProofThatDoesNotVerifyByDefault(t *testing.T) {
	job := corruptKeyJob(t, 2)
	e := loadPipeline(t, "../../../pipelines/groth16.yaml", map[string]string{"partitions": "2"}, cpuBackend(t, 1))
	res, err := e.Run(context.Background(), runtime.Job{ID: "corrupt", Partitions: 2, Payload: job})
	if err == nil {
		t.Fatal("a job with a corrupt proving key succeeded")
	}
	for _, want := range []string{`job "corrupt": partition `, `stage "epilogue" (groth16.epilogue)`, "proof does not verify", "so the proof is not returned"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if res != nil {
		for _, pr := range res.Partitions {
			if _, ok := pr.Outputs["epilogue"].(*g16.Proof); ok {
				t.Errorf("partition %d: a proof came out of a failed job", pr.Index)
			}
		}
	}
}

// With verify: false (benchmarks of the prover alone) the same key makes
// proofs that gnark's verifier rejects: the check above is the epilogue's.
func TestEpilogueVerifyFalseReturnsTheProofUnchecked(t *testing.T) {
	job := corruptKeyJob(t, 1)
	proofs, err := runSequential(t, job, cpuBackend(t, 1), func(typ string, c stages.Config) {
		if ec, ok := c.(*groth16.EpilogueConfig); ok {
			ec.Verify = false
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Verify(0, proofs[0]); err == nil {
		t.Error("a proof made with a corrupt proving key verifies")
	}
	// The default config checks it.
	if _, err := runSequential(t, job, cpuBackend(t, 1), nil); err == nil || !strings.Contains(err.Error(), "partition 0: proof does not verify") {
		t.Errorf("default epilogue: error %v, want partition 0's proof refused", err)
	}
}

// BenchmarkVerify is the cost the epilogue's check adds to each proof:
// gnark's Groth16 verifier (a multi-pairing, and one G1 MSM over the
// public inputs: chain has one).
//
//	go test -run '^$' -bench BenchmarkVerify -benchtime 200x ./stages/groth16/
func BenchmarkVerify(b *testing.B) {
	for _, log2 := range []int{12, 16} {
		b.Run(fmt.Sprintf("chain-2^%d", log2), func(b *testing.B) {
			set := setupKeys(b, "chain", 1<<log2)
			be := cpuBackend(b, 1)
			job, err := set.NewJob(1, 1)
			if err != nil {
				b.Fatal(err)
			}
			proofs, err := runSequential(b, job, be, nil)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := job.Verify(0, proofs[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
