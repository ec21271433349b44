package analyze

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// bigTrace is jobs × partitions partitions of the six Groth16 stages on
// two devices, each partition waiting once for its device's compute lock.
func bigTrace(jobs, partitions int) []tracefile.Span {
	b := &builder{spans: make([]tracefile.Span, 0, jobs*partitions*9+jobs)}
	for j := range jobs {
		base := float64(j) * 50
		job := b.job(fmt.Sprintf("j%d", j), base, base+float64(partitions)*20+60, partitions)
		for i := range partitions {
			dev := i % 2
			t := base + float64(i)*20
			p := b.partition(job, i, t, t+60)
			compute := fmt.Sprintf("gpu.%d.compute", dev)
			b.stage(p, "synthesize", "groth16.synthesize", -1, t, t+10, 0, "cpu_bandwidth")
			b.stage(p, "prep_msm", "groth16.prep_msm", -1, t+10, t+15, 0, "cpu_bandwidth")
			b.stage(p, "b_g2_msm", "groth16.b_g2_msm", dev, t+15, t+30, 0)
			b.stage(p, "vram_stage", "groth16.vram_stage", dev, t+15, t+20, 0, fmt.Sprintf("gpu.%d.mem", dev))
			b.wait(p, "gpu_compute", compute, t+20, t+25)
			b.stage(p, "gpu_compute", "groth16.gpu_compute", dev, t+25, t+50, 5, compute, fmt.Sprintf("gpu.%d.mem", dev))
			b.stage(p, "epilogue", "groth16.epilogue", dev, t+50, t+60, 0)
		}
	}
	return b.spans
}

func BenchmarkAnalyze(b *testing.B) {
	for _, size := range []struct{ jobs, partitions int }{{1, 10}, {10, 10}, {100, 10}, {10, 1000}} {
		spans := bigTrace(size.jobs, size.partitions)
		b.Run(fmt.Sprintf("jobs=%d/partitions=%d/spans=%d", size.jobs, size.partitions, len(spans)), func(b *testing.B) {
			for b.Loop() {
				if _, err := Analyze(spans, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWriteHTML(b *testing.B) {
	for _, jobs := range []int{1, 10, 100} {
		r, err := Analyze(bigTrace(jobs, 10), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			for b.Loop() {
				if err := r.WriteHTML(io.Discard, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAnalyzeFile reads generated traces span by span, as `prooflane
// analyze` does.
func BenchmarkAnalyzeFile(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		path, truth := generated(b, n)
		b.Run(fmt.Sprintf("spans=%d", truth.Spans), func(b *testing.B) {
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := AnalyzeFile(path, Options{TimelineSpans: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
