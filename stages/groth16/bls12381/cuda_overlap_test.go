//go:build cuda

package groth16_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	devcuda "github.com/prooflane/prooflane/device/cuda"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// TestCUDATwoLockUploadsOverlapOtherPartitionsKernels is the point of the
// two-lock layout on a real GPU: while one partition's gpu_compute holds
// gpu.{gpu}.compute, another partition's vram_stage allocates and uploads
// under gpu.{gpu}.mem on the same device. It asserts, from the recorded
// stage spans, that some vram_stage interval overlaps a gpu_compute
// interval of a different partition on the same device. (In production the
// two locks did not overlap because device-global calls in the upload
// waited for the kernels; the device contract forbids those.)
func TestCUDATwoLockUploadsOverlapOtherPartitionsKernels(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA device, so no overlap to measure (run it on a GPU: bash scripts/gpu-test.sh): %v", err)
	}
	defer be.Close()
	const partitions = 6
	set := setupKeys(t, "chain", 1<<12)
	job, err := set.NewJob(partitions, 21)
	if err != nil {
		t.Fatal(err)
	}
	// Every partition synthesizes at once, so they queue at gpu.0.mem and
	// an upload is waiting whenever a partition moves on to gpu_compute.
	params := map[string]string{"synth_workers": fmt.Sprint(partitions), "cpu_bandwidth": fmt.Sprint(2 * partitions)}
	p, err := runtime.Load("../../../pipelines/groth16-two-lock.yaml", registry(t), params)
	if err != nil {
		t.Fatal(err)
	}
	rec := stagetest.NewRecorder()
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 1, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "overlap", Partitions: partitions, Payload: job})
	if err != nil {
		t.Fatal(err)
	}
	for i, proof := range proofs(t, res) {
		if err := job.Verify(i, proof); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
	}

	mem, compute := rec.Stage("vram_stage"), rec.Stage("gpu_compute")
	if len(mem) != partitions || len(compute) != partitions {
		t.Fatalf("%d vram_stage and %d gpu_compute spans, want %d each", len(mem), len(compute), partitions)
	}
	var pairs []string
	var overlapped time.Duration
	for _, m := range mem {
		for _, c := range compute {
			if m.Partition == c.Partition || m.Device != c.Device || !m.Overlaps(c) {
				continue
			}
			from, to := later(m.Start, c.Start), earlier(m.End, c.End)
			overlapped += to.Sub(from)
			pairs = append(pairs, fmt.Sprintf("vram_stage p%d / gpu_compute p%d on device %d: %v", m.Partition, c.Partition, m.Device, to.Sub(from)))
		}
	}
	if len(pairs) == 0 {
		var b strings.Builder
		t0 := mem[0].Start
		for _, iv := range append(mem, compute...) {
			fmt.Fprintf(&b, "\n  %-11s p%d dev %d  %8.3f ms .. %8.3f ms", iv.Stage, iv.Partition, iv.Device,
				millis(iv.Start.Sub(t0)), millis(iv.End.Sub(t0)))
		}
		t.Fatalf("no vram_stage interval overlaps another partition's gpu_compute on the same device: the two locks serialize.%s", b.String())
	}
	t.Logf("%d overlapping pairs, %v of uploads under gpu.0.mem overlapped kernels under gpu.0.compute:\n  %s",
		len(pairs), overlapped, strings.Join(pairs, "\n  "))

	// The kernel spans inside gpu_compute are timed on the device.
	n, untimed := 0, map[string]int{}
	for _, s := range rec.Spans() {
		if k, _ := stagetest.Attr(s, pl.KeyKind); k.AsString() != pl.KindKernel {
			continue
		}
		n++
		if src, _ := stagetest.Attr(s, pl.KeyGPUTimeSource); src.AsString() != "device" {
			untimed[s.Name()+" ("+src.AsString()+")"]++
		}
	}
	if len(untimed) > 0 {
		t.Errorf("kernel spans not timed by CUDA events (gpu_time_source != \"device\"): %v", untimed)
	}
	// gpu_compute's ntt_h and four MSMs, and b_g2_msm's msm_g2: the device
	// sums the ones in its MSMs, so there is no batch_add or sum_g2
	if n != 6*partitions {
		t.Errorf("%d kernel spans, want %d", n, 6*partitions)
	}
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestCUDAOutOfMemoryFallbacksProveOnTheGPU runs both on_oom settings on
// the GPU with allocations failing as the fake device picks: vram_stage's
// retry, and gpu_compute's upload of deferred buffers (including one
// out-of-memory error of its own, retried), on real streams and memory.
func TestCUDAOutOfMemoryFallbacksProveOnTheGPU(t *testing.T) {
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	defer be.Close()
	set := setupKeys(t, "chain", 1<<12)
	for _, c := range []struct {
		onOOM string
		m     *fakeMem
	}{
		{groth16.OnOOMRetry, &fakeMem{Backend: be, failFirst: 2}},
		{groth16.OnOOMUploadInCompute, &fakeMem{Backend: be, failOnStream: func(call int) bool { return call == 4 || call == 6 }}},
	} {
		t.Run(c.onOOM, func(t *testing.T) {
			job, err := set.NewJob(3, 22)
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := runTwoLock(t, job, c.m, map[string]string{"on_oom": c.onOOM})
			if err != nil {
				t.Fatal(err)
			}
			verifyAll(t, job, res)
			if err := c.m.leaks(); err != nil {
				t.Error(err)
			}
		})
	}
}
