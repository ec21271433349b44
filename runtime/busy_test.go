package runtime

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// The trace says which stage runs kept their device busy (declared by the
// stage's config here: sim's busy) and which device each held resource
// belongs to, so readers never parse stage or lock names: the resource
// named gpu.0.plain is the machine's (it is no `{gpu}` template) and the
// stage named gpu_compute is not busy unless it says so.
func TestTraceRecordsDeviceBusyAndResourceDevices(t *testing.T) {
	p := mustParse(t, `
pipeline: declared
devices: 2
params: {partitions: 2}
resources:
  cpu: {capacity: 2}
  gpu.0.plain: {}
  gpu.{gpu}.compute: {}
stages:
  gpu_compute: {type: sim.device, locks: [cpu, gpu.0.plain], config: {duration: 1ms}}
  kernels: {type: sim.sleep, needs: [gpu_compute], locks: ["gpu.{gpu}.compute"], config: {duration: 1ms, busy: true}}
`)
	if p.Stages[0].DeviceBusy || !p.Stages[1].DeviceBusy {
		t.Fatalf("DeviceBusy: gpu_compute %v, kernels %v; want false, true", p.Stages[0].DeviceBusy, p.Stages[1].DeviceBusy)
	}
	rec := stagetest.NewRecorder()
	e := mustEngine(t, p, Options{Tracer: rec.TracerProvider()})
	if _, err := e.Run(context.Background(), Job{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range rec.Spans() {
		kind, _ := stagetest.Attr(s, pl.KeyKind)
		switch kind.AsString() {
		case pl.KindStage:
			busy, ok := stagetest.Attr(s, pl.KeyDeviceBusy)
			if !ok || busy.Type() != attribute.BOOL || busy.AsBool() != (s.Name() == "kernels") {
				t.Errorf("stage %s: prooflane.device_busy = %v (present %v)", s.Name(), busy.Emit(), ok)
			}
			seen[s.Name()]++
		case pl.KindLockHold:
			res, _ := stagetest.Attr(s, pl.KeyResource)
			dev, ok := stagetest.Attr(s, pl.KeyResourceDevice)
			part, _ := stagetest.Attr(s, pl.KeyDevice)
			want := int64(-1)
			switch res.AsString() {
			case "gpu.0.compute", "gpu.1.compute", "workers.gpu_compute.0", "workers.gpu_compute.1", "workers.kernels.0", "workers.kernels.1":
				want = part.AsInt64() // per-device: the partition's device
			}
			if !ok || dev.AsInt64() != want {
				t.Errorf("hold of %s (partition on device %d): prooflane.resource_device = %v (present %v), want %d",
					res.AsString(), part.AsInt64(), dev.Emit(), ok, want)
			}
			seen[res.AsString()]++
		}
	}
	if seen["kernels"] != 2 || seen["gpu_compute"] != 2 || seen["gpu.0.plain"] != 2 || seen["cpu"] != 2 {
		t.Errorf("spans seen: %v", seen)
	}
}
