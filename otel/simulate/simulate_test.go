package simulate

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
)

// realRun runs a pipeline of sim stages for real and returns its spans and
// analysis.
func realRun(t *testing.T, path string) ([]tracefile.Span, *analyze.Report) {
	t.Helper()
	p, err := runtime.Load(path, builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: tp})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), runtime.Job{}); err != nil {
		t.Fatal(err)
	}
	spans := tracefile.FromSDK(sr.Ended())
	r, err := analyze.Analyze(spans, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return spans, r
}

// tolerance is how far a prediction may be from a real run of the same
// layout: 25% of the makespan, 15 points of GPU busy. Timer slack on a
// loaded machine is the main error and compression multiplies it, so this
// test replays in real time (speed 1).
const (
	makespanTolerance = 0.25
	busyTolerance     = 15.0
)

// attempts: a busy machine (a compile, other tests) can stretch one real
// run by half; the prediction must match on one of three tries.
const attempts = 3

func TestPredictionMatchesARealRunOfTheNewLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pipelines in real time")
	}
	for _, layout := range []string{"testdata/single-lock.yaml", "testdata/dual-worker.yaml"} {
		t.Run(layout, func(t *testing.T) {
			var misses []string
			for range attempts {
				recorded, _ := realRun(t, "testdata/single-lock.yaml")
				pred, err := Predict(context.Background(), recorded, layout, Options{Registry: builtin.Registry(), Speed: 1})
				if err != nil {
					t.Fatal(err)
				}
				if pred.Jobs != 1 || pred.Partitions != 6 || pred.Report.Partitions != 6 || len(pred.Report.Devices) != 1 {
					t.Fatalf("replayed %d jobs of %d partitions (%d partition spans, %d devices)",
						pred.Jobs, pred.Partitions, pred.Report.Partitions, len(pred.Report.Devices))
				}
				_, real := realRun(t, layout)
				got, want := pred.Report.Makespan, real.Makespan
				pb, rb := pred.Report.Devices[0].BusyPct, real.Devices[0].BusyPct
				rel := math.Abs(float64(got-want)) / float64(want)
				t.Logf("predicted makespan %v, gpu busy %.1f%%; real %v, %.1f%%", got, pb, want, rb)
				if rel <= makespanTolerance && math.Abs(pb-rb) <= busyTolerance {
					return
				}
				misses = append(misses, fmt.Sprintf("predicted %v busy %.1f%% vs real %v busy %.1f%% (makespan off by %.0f%%)", got, pb, want, rb, 100*rel))
			}
			t.Errorf("prediction outside tolerance (makespan %.0f%%, busy %.0f points) on every try:\n%s",
				100*makespanTolerance, busyTolerance, strings.Join(misses, "\n"))
		})
	}
}

func TestPredictionRanksLayoutsLikeTheirDesign(t *testing.T) {
	recorded, _ := realRun(t, "testdata/single-lock.yaml")
	single, err := Predict(context.Background(), recorded, "testdata/single-lock.yaml", Options{Registry: builtin.Registry(), Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	dual, err := Predict(context.Background(), recorded, "testdata/dual-worker.yaml", Options{Registry: builtin.Registry(), Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: single lock ≈ 30 + 6×45 = 300 ms; dual ≈ 30 + 10 + 6×20 + 15 = 175 ms.
	if s, d := single.Report.Makespan, dual.Report.Makespan; float64(d) > 0.8*float64(s) {
		t.Errorf("dual-worker predicted %v, single lock %v: want dual at least 20%% faster", d, s)
	}
}

func TestPredictKeepsDevicePlacementAndRecordedTypes(t *testing.T) {
	recorded, _ := realRun(t, "testdata/dual-worker.yaml")
	pred, err := Predict(context.Background(), recorded, "testdata/dual-worker.yaml", Options{Registry: builtin.Registry(), Speed: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pred.Spans {
		if s.Str("prooflane.stage") == "vram_stage" && s.IntOr("prooflane.device", -1) != 0 {
			t.Errorf("vram_stage (sim.device) replayed off device: %v", s.Attrs["prooflane.device"])
		}
		if s.Str("prooflane.kind") == "stage" && !strings.HasPrefix(s.Str("prooflane.stage_type"), "replay.") {
			t.Errorf("stage %q ran type %q", s.Name, s.Str("prooflane.stage_type"))
		}
	}
	if len(pred.Sources) != 4 || pred.Sources[0] != "stage synthesize: 6 recorded runs" {
		t.Errorf("sources = %q", pred.Sources)
	}
}

func TestPredictNamesStagesMissingFromTheTrace(t *testing.T) {
	recorded, _ := realRun(t, "testdata/dual-worker.yaml")
	_, err := Predict(context.Background(), recorded, "testdata/renamed.yaml", Options{Registry: builtin.Registry()})
	if err == nil || !strings.Contains(err.Error(), `stage "synthesise" (did you mean "synthesize"?)`) {
		t.Fatalf("err = %v", err)
	}
}

// A stage span whose end is centuries off would make the replay sleep for
// centuries; Predict refuses it at once and names the span.
func TestPredictRefusesAStageRunLongerThanItCanReplay(t *testing.T) {
	recorded, _ := realRun(t, "testdata/dual-worker.yaml")
	broken := -1
	for i, s := range recorded {
		if s.Str("prooflane.kind") == "stage" && s.Name == "vram_stage" {
			broken = i
			break
		}
	}
	if broken < 0 {
		t.Fatal("no vram_stage span in the recorded run")
	}
	recorded[broken].End = recorded[broken].Start.Add(20 * time.Hour)
	_, err := Predict(context.Background(), recorded, "testdata/dual-worker.yaml", Options{Registry: builtin.Registry(), Speed: 10})
	want := fmt.Sprintf(`stage "vram_stage" of job %q partition %d ran 20h0m0s in the trace`,
		recorded[broken].Str("prooflane.job"), recorded[broken].IntOr("prooflane.partition", -1))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "would sleep 2h0m0s at speed 10") {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// At speed 100 the same run sleeps 12 minutes: allowed (not run here).
	if err := checkLongest(&recorded[broken], 100); err != nil {
		t.Errorf("at speed 100: %v", err)
	}
}
