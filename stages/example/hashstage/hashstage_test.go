package hashstage

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// docs/stages.md's example, run as it says.
func TestReadmeExampleRunsThroughTheRuntime(t *testing.T) {
	reg := stages.NewRegistry().MustRegister(Factory())
	stagetest.CheckFactories(t, reg)
	p, err := runtime.Parse("hash.yaml", []byte(`
pipeline: hash
resources:
  cpu_bandwidth: {capacity: 2}
stages:
  digest: {type: hash.sha256, workers: 4, locks: [cpu_bandwidth], config: {rounds: 3}}
`), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := runtime.NewEngine(p, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	res, err := e.Run(context.Background(), runtime.Job{Partitions: 3, Payload: inputs})
	if err != nil {
		t.Fatal(err)
	}
	for i, pr := range res.Partitions {
		want := sha256.Sum256(inputs[i])
		want = sha256.Sum256(want[:])
		want = sha256.Sum256(want[:])
		if got := pr.Outputs["digest"].([32]byte); got != want {
			t.Errorf("partition %d: digest %x, want %x", i, got, want)
		}
	}
}
