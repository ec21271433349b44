package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/sim"
)

// quickSimRegistry has the sim stage types with every duration cut to at
// most 1 ms, so a fuzzed pipeline that asks for hours still runs in
// milliseconds per stage.
func quickSimRegistry(t testing.TB) *stages.Registry {
	reg := stages.NewRegistry()
	for _, f := range sim.Factories() {
		real := f.New
		f.New = func(c stages.Config) (stages.Stage, error) {
			cfg := *c.(*sim.Config)
			cfg.Duration, cfg.Jitter = min(cfg.Duration, time.Millisecond), 0
			return real(&cfg)
		}
		if err := reg.Register(f); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// Any pipeline that validates runs to an end: every job returns, with a
// result or an error, and never deadlocks on its locks, spans or worker
// pools. Sizes are capped (partitions, workers, devices, retries and
// their backoff) so each run is short; what remains is the scheduling.
func FuzzValidPipelinesRunToAnEnd(f *testing.F) {
	files, _ := filepath.Glob("../pipelines/sim-*.yaml")
	for _, s := range files {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range fuzzRunSeeds {
		f.Add([]byte(s))
	}
	reg := quickSimRegistry(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse("fuzz.yaml", src, reg, nil)
		if err != nil {
			return
		}
		if p.Partitions > 16 || p.Devices > 4 {
			return
		}
		for _, s := range p.Stages {
			if s.Workers > 8 || s.Retry.Attempts > 5 || s.Retry.Initial > 100*time.Millisecond {
				return
			}
		}
		e, err := NewEngine(p, Options{})
		if err != nil {
			return
		}
		done := make(chan error, 1)
		go func() {
			_, err := e.Run(context.Background(), Job{})
			done <- err
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("a valid pipeline did not finish in a minute (a deadlock?):\n%s", src)
		}
	})
}

// fuzzRunSeeds are layouts with what sim-groth16.yaml lacks: spans over
// several stages, device-bound workers on two devices, retries, failures.
var fuzzRunSeeds = []string{`
pipeline: spans
params: {partitions: 4}
devices: 2
resources:
  cpu: {capacity: 2}
  gpu.{gpu}.mem: {capacity: 2}
  gpu.{gpu}.compute: {}
stages:
  prep: {type: sim.sleep, workers: 2, locks: [{cpu: 2}]}
  upload: {type: sim.device, needs: [prep]}
  compute: {type: sim.device, needs: [upload], locks: ["gpu.{gpu}.compute"]}
  finish: {type: sim.sleep, needs: [compute], locks: [cpu]}
spans:
  - {lock: "gpu.{gpu}.mem", from: upload, to: compute}
`, `
pipeline: retries
params: {partitions: 3}
resources:
  gpu.{gpu}.compute: {}
stages:
  a: {type: sim.sleep, workers: 2}
  b:
    type: sim.device
    needs: [a]
    locks: ["gpu.{gpu}.compute"]
    retry: {attempts: 3, initial: 1ms, max: 2ms}
    config: {fail: {partitions: [1], attempts: 1, retryable: true}}
  c: {type: sim.sleep, needs: [a], config: {fail: {partitions: [2]}}}
`}
