package runtime

// Scheduler overhead: the cost of dispatching one stage instance and
// acquiring and releasing its worker slot and locks, with stages that do
// nothing. Run with:
//
//	go test -run '^$' -bench BenchmarkSchedulerOverhead -benchtime 5x ./runtime
//
// The figure to read is us/stage: wall time per job over partitions × 6.

import (
	"context"
	"fmt"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

const sixStages = `
pipeline: overhead
params: {partitions: 1000}
resources:
  cpu_bandwidth: {capacity: 16}
  gpu.{gpu}.mem: {}
  gpu.{gpu}.compute: {}
stages:
  synthesize: {type: test.noop, workers: %[4]d, locks: [cpu_bandwidth]}
  prep_msm: {type: test.noop, needs: [synthesize], workers: %[4]d, locks: [cpu_bandwidth]}
  b_g2_msm: {type: test.noop, needs: [prep_msm], workers: %[4]d}
  vram_stage: {type: test.noop, needs: [prep_msm], workers: %[4]d, locks: [%[1]s]}
  gpu_compute: {type: test.noop, needs: [vram_stage], workers: %[4]d, locks: [%[2]s]}
  epilogue: {type: test.noop, needs: [b_g2_msm, gpu_compute], workers: %[4]d}
%[3]s`

func BenchmarkSchedulerOverhead(b *testing.B) {
	layouts := []struct{ name, mem, compute, spans string }{
		{"no_locks", "", "", ""},
		{"stage_locks", `"gpu.{gpu}.mem"`, `"gpu.{gpu}.compute"`, ""},
		{"span_lock", "", "", "spans:\n  - {lock: \"gpu.{gpu}.compute\", from: vram_stage, to: epilogue}\n"},
	}
	for _, l := range layouts {
		for _, workers := range []int{2, 8} {
			for _, traced := range []bool{false, true} {
				const parts = 1000
				b.Run(fmt.Sprintf("%s/workers=%d/traced=%v", l.name, workers, traced), func(b *testing.B) {
					p := mustParse(b, fmt.Sprintf(sixStages, l.mem, l.compute, l.spans, workers))
					opts := Options{}
					if traced {
						// Spans are recorded with their attributes, then dropped:
						// the cost of tracing without an exporter's I/O.
						opts.Tracer = sdktrace.NewTracerProvider()
					}
					e := mustEngine(b, p, opts)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if _, err := e.Run(context.Background(), Job{Partitions: parts}); err != nil {
							b.Fatal(err)
						}
					}
					perStage := float64(b.Elapsed().Nanoseconds()) / float64(b.N*parts*6) / 1000
					b.ReportMetric(perStage, "us/stage")
				})
			}
		}
	}
}

// Validation of a chain of stages with one span over it all. Run with:
//
//	go test -run '^$' -bench BenchmarkValidateChain ./runtime
func BenchmarkValidateChain(b *testing.B) {
	reg := testRegistry(b)
	for _, n := range []int{1_000, 5_000, 20_000} {
		b.Run(fmt.Sprintf("stages=%d", n), func(b *testing.B) {
			src := chainPipeline(n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Parse("chain.yaml", src, reg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
