package groth16_test

import (
	"github.com/consensys/gnark-crypto/ecc"
	"testing"
	"time"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	tcore "github.com/prooflane/prooflane/device/traced"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// timedBackend's streams implement device.Timer and report a fixed device
// time for every step, as CUDA events would.
type timedBackend struct {
	device.Backend
	gpu time.Duration
}

func (b timedBackend) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	return timedDevice{d, b.gpu}, err
}

type timedDevice struct {
	cdev.Device
	gpu time.Duration
}

func (d timedDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	return timedStream{s, d.gpu}, err
}

type timedStream struct {
	cdev.Stream
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

// With b_g2_msm on the device its MSM and its sum of the 0/1 wires' bases
// are kernel spans (msm_g2, sum_g2) under the stage's span, on the
// stage's device, so that analyze counts the G2 stage's device time too.
func TestTheG2StageOnTheDeviceTracesItsKernels(t *testing.T) {
	set := setupKeys(t, "sha256", 1<<8)
	job, err := set.NewJob(2, 17)
	if err != nil {
		t.Fatal(err)
	}
	res, rec, err := runTwoLock(t, job, cpuBackend(t, 1), map[string]string{"g2_on": "device"})
	if err != nil {
		t.Fatal(err)
	}
	verifyAll(t, job, res)
	stageSpans := map[string]bool{}
	for _, s := range rec.Spans() {
		if s.Name() == "b_g2_msm" {
			stageSpans[s.SpanContext().SpanID().String()] = true
		}
	}
	seen := map[string]int{}
	for _, s := range rec.Spans() {
		if s.Name() != tcore.KernelMSMG2 && s.Name() != tcore.KernelSumG2 {
			continue
		}
		seen[s.Name()]++
		if !stageSpans[s.Parent().SpanID().String()] {
			t.Errorf("%s span outside a b_g2_msm span", s.Name())
		}
		if d, _ := stagetest.Attr(s, pl.KeyDevice); d.AsInt64() != 0 {
			t.Errorf("%s span on device %d, want 0", s.Name(), d.AsInt64())
		}
	}
	if seen[tcore.KernelMSMG2] != 2 || seen[tcore.KernelSumG2] != 2 {
		t.Errorf("kernel spans %v, want 2 msm_g2 and 2 sum_g2 (one a partition)", seen)
	}
}
