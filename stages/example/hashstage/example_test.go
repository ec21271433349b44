package hashstage_test

import (
	"context"
	"fmt"
	"log"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/example/hashstage"
)

// docs/stages.md's "run jobs from Go": a registry with the stage, a pipeline,
// an engine, and a job of three partitions, one input each.
func Example_runJobs() {
	src := []byte(`
pipeline: hash
resources:
  cpu_bandwidth: {capacity: 2}
stages:
  digest: {type: hash.sha256, workers: 4, locks: [cpu_bandwidth], config: {rounds: 3}}
`)
	reg := stages.NewRegistry().MustRegister(hashstage.Factory())
	p, err := runtime.Parse("hash.yaml", src, reg, nil) // runtime.Load("hash.yaml", reg, nil) reads a file
	if err != nil {
		log.Fatal(err)
	}
	e, err := runtime.NewEngine(p, runtime.Options{}) // Options.Tracer: an OpenTelemetry TracerProvider
	if err != nil {
		log.Fatal(err)
	}
	inputs := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	res, err := e.Run(context.Background(), runtime.Job{Partitions: len(inputs), Payload: inputs})
	if err != nil {
		log.Fatal(err)
	}
	digest := res.Partitions[0].Outputs["digest"].([32]byte)
	fmt.Printf("%d partitions; partition 0: %x...\n", len(res.Partitions), digest[:4])
	// Output: 3 partitions; partition 0: eb48bdfa...
}
