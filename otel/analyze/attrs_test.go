package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// declaredTrace is one job of two partitions on device 0 in the current
// format: stage spans say whether they keep the device busy, lock_hold
// spans which device their resource belongs to. The names say nothing:
// the busy stage is "kernels" (holding "queue.0", which no name rule
// knows), the stage named gpu_compute holding gpu.0.compute is declared
// not busy, and "gpu.0.scratch" is the machine's, not device 0's.
//
//	p0: kernels [10,40]; gpu_compute [40,50]
//	p1: kernels [40,70] after waiting for queue.0 [10,40]; gpu_compute [70,80]
//
// By hand: device 0 busy [10,70] = 60 of 100 ms.
func declaredTrace() []tracefile.Span {
	b := &builder{spans: make([]tracefile.Span, 0, 32)}
	j := b.job("j1", 0, 100, 2)
	j.Attrs["family.vector_len"] = int64(1024) // a family's own job attribute
	for i, off := range []float64{0, 30} {
		p := b.partition(j, i, 0, 100)
		k := b.stage(p, "kernels", "vc.commit", 0, 10+off, 40+off, off, "queue.0")
		k.Attrs[string(pl.KeyDeviceBusy)] = true
		g := b.stage(p, "gpu_compute", "sim.device", 0, 40+off, 50+off, 0, "gpu.0.compute", "gpu.0.scratch")
		g.Attrs[string(pl.KeyDeviceBusy)] = false
		for _, h := range []struct {
			res      string
			dev      int64
			from, to float64
		}{{"queue.0", 0, 10 + off, 40 + off}, {"gpu.0.compute", 0, 40 + off, 50 + off}, {"gpu.0.scratch", -1, 40 + off, 50 + off}} {
			stage := "gpu_compute"
			if h.res == "queue.0" {
				stage = "kernels"
			}
			s := b.hold(p, stage, h.res, 1, h.from, h.to, 0)
			s.Attrs[string(pl.KeyResourceDevice)] = h.dev
		}
	}
	for i := range b.spans {
		b.spans[i].Resource = map[string]any{"service.name": "prooflane", string(pl.KeyPipeline): "vc",
			"prooflane.vc_width": int64(8), "telemetry.sdk.name": "opentelemetry"}
	}
	return b.spans
}

func TestBusyAndResourceDevicesComeFromAttributesNotNames(t *testing.T) {
	// The attributes survive prooflane's trace file and Jaeger's JSON.
	var buf bytes.Buffer
	spans := declaredTrace()
	for i := range spans {
		spans[i].TraceID = "0af7651916cd43dd8448eb211c80319c" // one job: one trace, in hex as OTLP wants
	}
	if err := tracefile.Write(&buf, spans); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{path, writeJaeger(t, declaredTrace())} {
		if r := analyzeFile(t, file, Options{}); len(r.Devices) != 1 || r.Devices[0].Busy != 60*ms || resource(t, r, "gpu.0.scratch").Device != -1 {
			t.Errorf("%s: devices %+v, gpu.0.scratch on %d; want device 0 busy 60ms, gpu.0.scratch on none",
				file, r.Devices, resource(t, r, "gpu.0.scratch").Device)
		}
	}
	r, err := Analyze(declaredTrace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Devices) != 1 || r.Devices[0].Busy != 60*ms {
		t.Fatalf("devices %+v; want device 0 busy 60ms (kernels' runs only)", r.Devices)
	}
	if !strings.Contains(r.BusyRule, "prooflane.device_busy") {
		t.Errorf("busy rule %q", r.BusyRule)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings on a trace that declares everything: %q", r.Warnings)
	}
	for name, want := range map[string]int{"queue.0": 0, "gpu.0.compute": 0, "gpu.0.scratch": -1} {
		if got := resource(t, r, name).Device; got != want {
			t.Errorf("%s: device %d, want %d (as recorded)", name, got, want)
		}
	}
	// --busy-stage still picks runs by name when a person asks.
	r, err = Analyze(declaredTrace(), Options{BusyStage: "gpu_compute"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Devices[0].Busy != 20*ms || !strings.Contains(r.BusyRule, "chosen by name") {
		t.Errorf("--busy-stage gpu_compute: busy %v by %q, want 20ms", r.Devices[0].Busy, r.BusyRule)
	}
}

// A trace that declares busy stages but has none on its devices says so,
// rather than guessing from the names (gpu_compute here).
func TestNoDeclaredBusyStageIsWarnedNotGuessed(t *testing.T) {
	spans := declaredTrace()
	for i := range spans {
		if _, ok := spans[i].Attrs[string(pl.KeyDeviceBusy)]; ok {
			spans[i].Attrs[string(pl.KeyDeviceBusy)] = false
		}
	}
	r, err := Analyze(spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Devices[0].Busy != 0 {
		t.Errorf("busy %v, want 0 (no stage declared busy)", r.Devices[0].Busy)
	}
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "no stage run declares that it keeps its device busy") {
		t.Errorf("warnings: %q", r.Warnings)
	}
}

// Two resources of one device as recorded, both contended and never held
// together, are a hidden serialization whatever their names.
func TestHiddenSerializationUsesRecordedDevices(t *testing.T) {
	b := &builder{spans: make([]tracefile.Span, 0, 32)}
	j := b.job("j", 0, 100, 2)
	p0, p1 := b.partition(j, 0, 0, 100), b.partition(j, 1, 0, 100)
	hold := func(p *tracefile.Span, stage, res string, from, to, wait float64) {
		b.hold(p, stage, res, 1, from, to, wait).Attrs[string(pl.KeyResourceDevice)] = int64(3)
	}
	b.stage(p0, "load", "t.load", 3, 0, 20, 0, "hbm")
	hold(p0, "load", "hbm", 0, 20, 0)
	b.stage(p0, "run", "t.run", 3, 21, 40, 1, "sm")
	hold(p0, "run", "sm", 21, 40, 1)
	b.stage(p1, "load", "t.load", 3, 40, 60, 40, "hbm")
	hold(p1, "load", "hbm", 40, 60, 40)
	b.stage(p1, "run", "t.run", 3, 61, 80, 1, "sm")
	hold(p1, "run", "sm", 61, 80, 1)
	r, err := Analyze(b.spans, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.HasPrefix(w, `device 3: "hbm" and "sm" are separate locks`)
	}
	if !found {
		t.Errorf("no hidden-serialization warning for device 3: %q", r.Warnings)
	}
}

// The HTML header shows what the run recorded about itself, including
// attributes no code in analyze names: a command's prooflane.* resource
// attribute and a family's job attribute.
func TestHTMLHeaderShowsRecordedRunAttributesGenerically(t *testing.T) {
	r, err := Analyze(declaredTrace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf, "t"); err != nil {
		t.Fatal(err)
	}
	want := "service.name prooflane · prooflane.pipeline vc · prooflane.vc_width 8 · family.vector_len 1024"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("header lacks %q:\n%s", want, resourceLine(r.t))
	}
	if strings.Contains(resourceLine(r.t), "telemetry.sdk") || strings.Contains(resourceLine(r.t), "prooflane.job ") {
		t.Errorf("header shows SDK or bookkeeping attributes: %s", resourceLine(r.t))
	}
}
