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
	pl "github.com/prooflane/prooflane/otel/semconv"
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
	// The replay sleeps: on a loaded machine a run can stretch, so each
	// layout's best of three counts (a stretch never shortens a run).
	best := func(file string) time.Duration {
		var fastest time.Duration
		for range 3 {
			p, err := Predict(context.Background(), recorded, file, Options{Registry: builtin.Registry(), Speed: 2})
			if err != nil {
				t.Fatal(err)
			}
			if m := p.Report.Makespan; fastest == 0 || m < fastest {
				fastest = m
			}
		}
		return fastest
	}
	single, dual := best("testdata/single-lock.yaml"), best("testdata/dual-worker.yaml")
	// By hand: single lock ≈ 30 + 6×45 = 300 ms; dual ≈ 30 + 10 + 6×20 + 15 = 175 ms.
	if s, d := single, dual; float64(d) > 0.8*float64(s) {
		t.Errorf("dual-worker predicted %v, single lock %v: want dual at least 20%% faster", d, s)
	}
}

func TestPredictKeepsDevicePlacementAndRecordedTypes(t *testing.T) {
	recorded, _ := realRun(t, "testdata/dual-worker.yaml")
	pred, err := Predict(context.Background(), recorded, "testdata/dual-worker.yaml", Options{Registry: builtin.Registry(), Speed: 10})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{"synthesize": "sim.sleep", "vram_stage": "sim.device", "gpu_compute": "sim.device", "epilogue": "sim.sleep"}
	for _, s := range pred.Spans {
		if b := s.Resource[string(pl.KeyBackend)]; b != "replay" {
			t.Fatalf("span %q: backend %v, want replay", s.Name, b)
		}
		if s.Str("prooflane.stage") == "vram_stage" && s.IntOr("prooflane.device", -1) != 0 {
			t.Errorf("vram_stage (sim.device) replayed off device: %v", s.Attrs["prooflane.device"])
		}
		// The replay runs in place of each stage's implementation: the
		// trace still names the stage's own type.
		if want := types[s.Str("prooflane.stage")]; s.Str("prooflane.kind") == "stage" && s.Str("prooflane.stage_type") != want {
			t.Errorf("stage %q recorded type %q, want %q", s.Name, s.Str("prooflane.stage_type"), want)
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

// recordedGroth16 is a hand-made trace of one job of pipelines/groth16.yaml:
// two partitions, each stage a few milliseconds.
func recordedGroth16() []tracefile.Span {
	t0 := time.Unix(1_700_000_000, 0)
	job := tracefile.Span{Name: "job groth16", Start: t0, End: t0.Add(40 * time.Millisecond), Attrs: map[string]any{
		string(pl.KeyKind): pl.KindJob, string(pl.KeyJob): "j", string(pl.KeyPartitions): int64(2)}}
	spans := []tracefile.Span{job}
	for part := range 2 {
		at := t0
		for _, st := range []struct {
			name, typ string
			d         time.Duration
		}{
			{"synthesize", "groth16.synthesize", 4 * time.Millisecond}, {"prep_msm", "groth16.prep_msm", 2 * time.Millisecond},
			{"b_g2_msm", "groth16.b_g2_msm", 3 * time.Millisecond}, {"vram_stage", "groth16.vram_stage", time.Millisecond},
			{"gpu_compute", "groth16.gpu_compute", 3 * time.Millisecond}, {"epilogue", "groth16.epilogue", time.Millisecond},
		} {
			spans = append(spans, tracefile.Span{Name: st.name, Start: at, End: at.Add(st.d), Attrs: map[string]any{
				string(pl.KeyKind): pl.KindStage, string(pl.KeyJob): "j", string(pl.KeyPartition): int64(part),
				string(pl.KeyStage): st.name, string(pl.KeyStageType): st.typ}})
			at = at.Add(st.d)
		}
	}
	return spans
}

// With g2_on: device, groth16.b_g2_msm's config puts it on the partition's
// device; the replay runs that same stage (only its implementation is
// replaced), so its runs are placed on a device and take a worker of the
// device's pool, as in a real run. Rewriting the YAML to replay types lost
// the config, and with it the binding.
func TestPredictKeepsConfigDerivedDeviceBinding(t *testing.T) {
	for _, tc := range []struct {
		g2On   string
		bound  bool
		worker string // the b_g2_msm worker pool its runs hold
	}{
		{"device", true, "workers.b_g2_msm.0"},
		{"cpu", false, "workers.b_g2_msm"},
	} {
		t.Run("g2_on="+tc.g2On, func(t *testing.T) {
			reg := builtin.Registry()
			set := map[string]string{"g2_on": tc.g2On, "partitions": "2"}
			orig, err := runtime.Load("../../pipelines/groth16.yaml", reg, set)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range orig.Stages {
				if s.Name == "b_g2_msm" && s.DeviceBound != tc.bound {
					t.Fatalf("b_g2_msm device-bound %v in the pipeline, want %v", s.DeviceBound, tc.bound)
				}
			}
			pred, err := Predict(context.Background(), recordedGroth16(), "../../pipelines/groth16.yaml",
				Options{Registry: reg, Params: set, Speed: 1})
			if err != nil {
				t.Fatal(err)
			}
			runs, holds := 0, 0
			for _, s := range pred.Spans {
				switch s.Str(string(pl.KeyKind)) {
				case pl.KindStage:
					if s.Str(string(pl.KeyStage)) == "b_g2_msm" {
						runs++
						// b_g2_msm starts before vram_stage (file order), so
						// only its own binding places the partition first.
						if d := s.IntOr(string(pl.KeyDevice), -1); (d >= 0) != tc.bound {
							t.Errorf("b_g2_msm replayed on device %d, device-bound %v", d, tc.bound)
						}
					}
				case pl.KindLockHold:
					if r := s.Str(string(pl.KeyResource)); strings.HasPrefix(r, "workers.b_g2_msm") {
						holds++
						if r != tc.worker {
							t.Errorf("b_g2_msm held worker pool %q, want %q", r, tc.worker)
						}
					}
				}
			}
			if runs != 2 || holds != 2 {
				t.Errorf("%d b_g2_msm runs and %d worker holds replayed, want 2 of each", runs, holds)
			}
		})
	}
}

// simulate --devices N predicts N devices with the layout's auto counts
// sized for N: the replayed run holds synthesize's worker pool and
// cpu_bandwidth at the N-device capacities (caps from Cores), not the
// one-device ones the file would give alone.
func TestPredictSizesAutoCountsForTheDevicesPredicted(t *testing.T) {
	for _, tc := range []struct {
		devices, cores          int
		synthesize, cpuCapacity int64
	}{
		{1, 8, 2, 4},
		{2, 16, 4, 8},
		{2, 32, 8, 16}, // one worker per 4 cores, more than 2 a device
		{8, 8, 8, 16},
	} {
		t.Run(fmt.Sprintf("%d devices %d cores", tc.devices, tc.cores), func(t *testing.T) {
			pred, err := Predict(context.Background(), recordedGroth16(), "../../pipelines/groth16.yaml",
				Options{Registry: builtin.Registry(), Params: map[string]string{"partitions": "2"}, Devices: tc.devices, Cores: tc.cores, Speed: 1})
			if err != nil {
				t.Fatal(err)
			}
			capacity := map[string]int64{}
			for _, s := range pred.Spans {
				if s.Str(string(pl.KeyKind)) == pl.KindLockHold {
					capacity[s.Str(string(pl.KeyResource))] = s.IntOr(string(pl.KeyCapacity), -1)
				}
			}
			if got := capacity["workers.synthesize"]; got != tc.synthesize {
				t.Errorf("synthesize worker pool of %d in the replay, want %d (held: %v)", got, tc.synthesize, capacity)
			}
			if got := capacity["cpu_bandwidth"]; got != tc.cpuCapacity {
				t.Errorf("cpu_bandwidth capacity %d in the replay, want %d", got, tc.cpuCapacity)
			}
			want := fmt.Sprintf("synthesize: workers auto = %d (", tc.synthesize)
			found := false
			for _, a := range pred.Auto {
				found = found || strings.HasPrefix(a.String(), want)
			}
			if !found {
				t.Errorf("prediction's auto counts %v lack %q", pred.Auto, want)
			}
		})
	}
}
