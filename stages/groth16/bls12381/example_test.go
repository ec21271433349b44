package groth16_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	groth16_bls12381 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// docs/groth16.md's "The job payload": keys from the cache, a job of four
// partitions with four witnesses, the embedded pipeline, every proof
// checked with gnark's verifier.
func Example_jobPayload() {
	dir, err := os.MkdirTemp("", "prooflane-keys")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	set, err := keys.Cache{Dir: dir}.LoadOrSetup(ctx, "chain", 1<<8, io.Discard) // setup on first use, then cached
	if err != nil {
		log.Fatal(err)
	}
	be, err := cpu.New(1) // 1 emulated device
	if err != nil {
		log.Fatal(err)
	}
	defer be.Close()
	job, err := set.NewJob(4, 1) // 4 partitions, 4 different witnesses (seed 1)
	if err != nil {
		log.Fatal(err)
	}
	file, src, err := pipelines.Source("groth16") // embedded; a file path works too
	if err != nil {
		log.Fatal(err)
	}
	p, err := runtime.Parse(file, src, builtin.Registry(), nil)
	if err != nil {
		log.Fatal(err)
	}
	engine, err := runtime.NewEngine(p, runtime.Options{Backend: be}) // the engine lends be to the stages
	if err != nil {
		log.Fatal(err)
	}
	// Deferred last, so it runs before be.Close: the stages are done with be.
	defer engine.Close(ctx)
	res, err := engine.Run(ctx, runtime.Job{Payload: job}) // partitions: the job's 4
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Partitions {
		proof := r.Outputs["epilogue"].(*groth16_bls12381.Proof)
		if err := job.Verify(r.Index, proof); err != nil {
			log.Fatalf("partition %d: %v", r.Index, err)
		}
	}
	fmt.Println(len(res.Partitions), "proofs, each verified by gnark")
	// Output: 4 proofs, each verified by gnark
}
