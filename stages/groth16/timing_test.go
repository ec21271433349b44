package groth16_test

import (
	"testing"
	"time"

	"github.com/prooflane/prooflane/device"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// timedBackend's streams implement device.Timer and report a fixed device
// time for every step, as CUDA events would.
type timedBackend struct {
	device.Backend
	gpu time.Duration
}

func (b timedBackend) Device(i int) (device.Device, error) {
	d, err := b.Backend.Device(i)
	return timedDevice{d, b.gpu}, err
}

type timedDevice struct {
	device.Device
	gpu time.Duration
}

func (d timedDevice) NewStream() (device.Stream, error) {
	s, err := d.Device.NewStream()
	return timedStream{s, d.gpu}, err
}

type timedStream struct {
	device.Stream
	gpu time.Duration
}

func (s timedStream) Time(f func() error) (time.Duration, bool, error) {
	if err := f(); err != nil {
		return 0, false, err
	}
	return s.gpu, true, nil
}

func TestKernelSpansReportDeviceTimeWhenTheStreamTimesItElseWallTime(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	kernels := []string{"ntt_h", "msm_a", "msm_b1", "msm_k", "msm_h", "batch_add"}
	for _, c := range []struct {
		name   string
		be     device.Backend
		source string
	}{
		{"timed", timedBackend{cpuBackend(t, 1), 1234500 * time.Microsecond}, "device"},
		{"cpu", cpuBackend(t, 1), "wall"},
	} {
		t.Run(c.name, func(t *testing.T) {
			job, err := set.NewJob(2, 13)
			if err != nil {
				t.Fatal(err)
			}
			res, rec, err := runTwoLock(t, job, c.be, nil)
			if err != nil {
				t.Fatal(err)
			}
			verifyAll(t, job, res)
			seen := map[string]int{}
			for _, s := range rec.Spans() {
				if k, _ := stagetest.Attr(s, pl.KeyKind); k.AsString() != pl.KindKernel {
					continue
				}
				seen[s.Name()]++
				src, _ := stagetest.Attr(s, pl.KeyGPUTimeSource)
				ms, ok := stagetest.Attr(s, pl.KeyGPUTimeMS)
				if src.AsString() != c.source || !ok {
					t.Errorf("kernel %s: gpu_time_source %q (gpu_time_ms set: %v), want %q", s.Name(), src.AsString(), ok, c.source)
				}
				if c.source == "device" && ms.AsFloat64() != 1234.5 {
					t.Errorf("kernel %s: gpu_time_ms %v, want the stream's 1234.5", s.Name(), ms.AsFloat64())
				}
				if wall := float64(s.EndTime().Sub(s.StartTime()).Microseconds()) / 1000; c.source == "wall" && ms.AsFloat64() > wall {
					t.Errorf("kernel %s: wall gpu_time_ms %v above the span's %v ms", s.Name(), ms.AsFloat64(), wall)
				}
			}
			for _, k := range kernels {
				if seen[k] != 2 {
					t.Errorf("%d %s spans, want 2", seen[k], k)
				}
			}
		})
	}
}
