package groth16_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"maps"
	"regexp"
	"strings"
	"sync"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// fakeMem wraps a backend: its streams fail chosen allocations with
// device.ErrOutOfMemory, and it counts what is allocated, freed, opened
// and closed, so a test can check that nothing leaks.
type fakeMem struct {
	device.Backend

	// failFirst fails the first failFirst allocations of the backend,
	// whichever stream asks.
	failFirst int
	// failOnStream, when set, fails a stream's call-th allocation (1-based,
	// counted per stream; failed calls count).
	failOnStream func(call int) bool
	// failAlloc, when set, fails a stream's call-th allocation (1-based,
	// per stream) of n scalars when it returns true.
	failAlloc func(call, n int) bool
	// failLoad, when set, fails LoadG1 and LoadG2 of the keys it picks
	// (bases that do not fit).
	failLoad func(key string) bool
	// info is what Info reports when set.
	info *device.Info
	// hostBases gives its devices cdev.HostBases (the wrapped ones').
	hostBases bool

	mu                           sync.Mutex
	calls, allocs, failed, frees int
	opened, closed, loadCalls    int
	// peakLive is the most vectors one stream held at once.
	peakLive int
	// vectors is a partition's vectors: 6 (a, b, c and three MSMs'
	// scalars), 7 with a commitment's proof of knowledge; 0 is 6.
	vectors int
}

func (m *fakeMem) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(m.Backend, i)
	if err != nil {
		return nil, err
	}
	fd := &fakeMemDevice{Device: d, m: m}
	if m.hostBases {
		return &fakeHostDevice{fakeMemDevice: fd, hb: d.(cdev.HostBases)}, nil
	}
	return fd, nil
}

// fakeHostDevice is a fakeMemDevice that can keep bases on the host
// (cdev.HostBases, the wrapped device's).
type fakeHostDevice struct {
	*fakeMemDevice
	hb cdev.HostBases
}

func (d *fakeHostDevice) HostG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	return d.hb.HostG1(key, points)
}

func (d *fakeHostDevice) HostG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	return d.hb.HostG2(key, points)
}

func (d *fakeHostDevice) HostChunk() int { return d.hb.HostChunk() }

// leaks reports vectors allocated and not freed, streams not closed, and
// a stream that held more than one partition's six vectors at once (a
// failed upload must free what it allocated before the next one).
func (m *fakeMem) leaks() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.allocs != m.frees || m.opened != m.closed {
		return fmt.Errorf("%d vectors allocated, %d freed; %d streams opened, %d closed", m.allocs, m.frees, m.opened, m.closed)
	}
	if want := max(m.vectors, 6); m.peakLive > want {
		return fmt.Errorf("a stream held %d vectors at once, want at most a partition's %d", m.peakLive, want)
	}
	return nil
}

type fakeMemDevice struct {
	cdev.Device
	m *fakeMem
}

func (d *fakeMemDevice) Info() device.Info {
	if d.m.info != nil {
		return *d.m.info
	}
	return d.Device.Info()
}

// loadFails counts a LoadG1 or LoadG2 call and says whether failLoad
// fails it.
func (m *fakeMem) loadFails(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loadCalls++
	return m.failLoad != nil && m.failLoad(key)
}

func (d *fakeMemDevice) LoadG1(key string, points []curve.G1Affine) (device.G1Bases, error) {
	if d.m.loadFails(key) {
		return nil, fmt.Errorf("fake: load g1 %s: %w", key, device.ErrOutOfMemory)
	}
	return d.Device.LoadG1(key, points)
}

func (d *fakeMemDevice) LoadG2(key string, points []curve.G2Affine) (device.G2Bases, error) {
	if d.m.loadFails(key) {
		return nil, fmt.Errorf("fake: load g2 %s: %w", key, device.ErrOutOfMemory)
	}
	return d.Device.LoadG2(key, points)
}

func (d *fakeMemDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	if err != nil {
		return nil, err
	}
	d.m.mu.Lock()
	d.m.opened++
	d.m.mu.Unlock()
	return &fakeMemStream{Stream: s, m: d.m}, nil
}

type fakeMemStream struct {
	cdev.Stream
	m           *fakeMem
	calls, live int // guarded by m.mu
}

func (s *fakeMemStream) Alloc(n int) (device.Vector, error) {
	m := s.m
	m.mu.Lock()
	m.calls++
	s.calls++
	fail := m.calls <= m.failFirst || m.failOnStream != nil && m.failOnStream(s.calls) ||
		m.failAlloc != nil && m.failAlloc(s.calls, n)
	if fail {
		m.failed++
	}
	m.mu.Unlock()
	if fail {
		return nil, fmt.Errorf("fake: alloc %d scalars: %w", n, device.ErrOutOfMemory)
	}
	v, err := s.Stream.Alloc(n)
	if err == nil {
		m.mu.Lock()
		m.allocs++
		s.live++
		m.peakLive = max(m.peakLive, s.live)
		m.mu.Unlock()
	}
	return v, err
}

func (s *fakeMemStream) Free(v device.Vector) {
	s.m.mu.Lock()
	s.m.frees++
	s.live--
	s.m.mu.Unlock()
	s.Stream.Free(v)
}

func (s *fakeMemStream) Close() error {
	s.m.mu.Lock()
	s.m.closed++
	s.m.mu.Unlock()
	return s.Stream.Close()
}

// runTwoLock proves job with pipelines/groth16-two-lock.yaml, recording the
// spans. b_g2_msm runs on the host cores (g2_on=cpu) unless params say
// otherwise: these tests count and fail the G1 path's device allocations,
// and G2's would shift the count (G2 on the device has its own test).
func runTwoLock(t *testing.T, job *groth16.Job, be device.Backend, params map[string]string) (*runtime.Result, *stagetest.Recorder, error) {
	t.Helper()
	set := map[string]string{"g2_on": "cpu"}
	maps.Copy(set, params)
	p, err := runtime.Load("../../../pipelines/groth16-two-lock.yaml", registry(t), set)
	if err != nil {
		t.Fatal(err)
	}
	rec := stagetest.NewRecorder()
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 1, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "oom", Partitions: len(job.Witnesses), Payload: job})
	return res, rec, err
}

// verifyAll checks every partition's proof with gnark.
func verifyAll(t *testing.T, job *groth16.Job, res *runtime.Result) {
	t.Helper()
	ps := proofs(t, res)
	if len(ps) != len(job.Witnesses) {
		t.Fatalf("%d proofs, want %d", len(ps), len(job.Witnesses))
	}
	for i, proof := range ps {
		if err := job.Verify(i, proof); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
	}
}

// runs counts a stage's runs (one stage span per attempt) and the failed ones.
func runs(rec *stagetest.Recorder, stage string) (all, failed int) {
	for _, iv := range rec.Stage(stage) {
		all++
		if iv.Error {
			failed++
		}
	}
	return all, failed
}

func kernelSpans(rec *stagetest.Recorder, name string) int {
	n := 0
	for _, iv := range rec.Intervals(pl.KindKernel) {
		if iv.Name == name {
			n++
		}
	}
	return n
}

func TestOutOfMemoryInVRAMStageIsRetriedAndEveryProofVerifies(t *testing.T) {
	const partitions, oom = 3, 3
	set := setupKeys(t, "chain", 1<<8)
	m := &fakeMem{Backend: cpuBackend(t, 1), failFirst: oom}
	job, err := set.NewJob(partitions, 7)
	if err != nil {
		t.Fatal(err)
	}
	res, rec, err := runTwoLock(t, job, m, nil) // on_oom: retry, the default
	if err != nil {
		t.Fatal(err)
	}
	verifyAll(t, job, res)
	if all, failed := runs(rec, "vram_stage"); all != partitions+oom || failed != oom {
		t.Errorf("vram_stage ran %d times, %d failed; want %d, %d (one retry per out-of-memory error)", all, failed, partitions+oom, oom)
	}
	if n := kernelSpans(rec, "upload"); n != 0 {
		t.Errorf("%d upload spans in gpu_compute with on_oom: retry, want 0", n)
	}
	if err := m.leaks(); err != nil {
		t.Error(err)
	}
}

func TestOutOfMemoryInVRAMStageUploadsInComputeAndEveryProofVerifies(t *testing.T) {
	const partitions = 3
	set := setupKeys(t, "chain", 1<<8)
	// Each stream's 4th allocation (wA, after a, b, c) fails: vram_stage
	// gives up on every partition with three vectors to free; gpu_compute's
	// allocations (the 5th to the 10th) succeed.
	m := &fakeMem{Backend: cpuBackend(t, 1), failOnStream: func(call int) bool { return call == 4 }}
	job, err := set.NewJob(partitions, 8)
	if err != nil {
		t.Fatal(err)
	}
	res, rec, err := runTwoLock(t, job, m, map[string]string{"on_oom": groth16.OnOOMUploadInCompute})
	if err != nil {
		t.Fatal(err)
	}
	verifyAll(t, job, res)
	if all, failed := runs(rec, "vram_stage"); all != partitions || failed != 0 {
		t.Errorf("vram_stage ran %d times, %d failed; want %d, 0 (no retry)", all, failed, partitions)
	}
	if all, failed := runs(rec, "gpu_compute"); all != partitions || failed != 0 {
		t.Errorf("gpu_compute ran %d times, %d failed; want %d, 0", all, failed, partitions)
	}
	if n := kernelSpans(rec, "upload"); n != partitions {
		t.Errorf("%d upload spans in gpu_compute, want %d", n, partitions)
	}
	m.mu.Lock()
	if m.failed != partitions || m.allocs != partitions*(3+6) {
		t.Errorf("%d allocations failed, %d succeeded; want %d, %d", m.failed, m.allocs, partitions, partitions*9)
	}
	m.mu.Unlock()
	if err := m.leaks(); err != nil {
		t.Error(err)
	}
}

func TestOutOfMemoryInComputesUploadIsRetryableAndLeaksNothing(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	t.Run("retried", func(t *testing.T) {
		const partitions = 2
		// vram_stage's first allocation fails (deferred), then gpu_compute's
		// second (b, after a): its retry uploads all six.
		m := &fakeMem{Backend: cpuBackend(t, 1), failOnStream: func(call int) bool { return call == 1 || call == 3 }}
		job, err := set.NewJob(partitions, 9)
		if err != nil {
			t.Fatal(err)
		}
		res, rec, err := runTwoLock(t, job, m, map[string]string{"on_oom": groth16.OnOOMUploadInCompute})
		if err != nil {
			t.Fatal(err)
		}
		verifyAll(t, job, res)
		if all, failed := runs(rec, "gpu_compute"); all != 2*partitions || failed != partitions {
			t.Errorf("gpu_compute ran %d times, %d failed; want %d, %d", all, failed, 2*partitions, partitions)
		}
		if err := m.leaks(); err != nil {
			t.Error(err)
		}
	})
	t.Run("attempts exhausted", func(t *testing.T) {
		// Every allocation after vram_stage's deferral fails too: the job
		// fails once gpu_compute's retries are spent.
		m := &fakeMem{Backend: cpuBackend(t, 1), failOnStream: func(call int) bool { return call != 2 }}
		job, err := set.NewJob(2, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = runTwoLock(t, job, m, map[string]string{"on_oom": groth16.OnOOMUploadInCompute})
		if err == nil {
			t.Fatal("job succeeded with a device that is always out of memory")
		}
		if !stages.IsRetryable(err) || !errors.Is(err, device.ErrOutOfMemory) {
			t.Errorf("error %v: want a retryable out-of-memory error", err)
		}
		var se *runtime.StageError
		if !errors.As(err, &se) || se.Stage != "gpu_compute" {
			t.Errorf("error %v: want a failure of stage gpu_compute", err)
		}
		if !regexp.MustCompile(`partition \d device 0: upload: alloc [a-z]+ \(\d+ scalars\): `).MatchString(err.Error()) {
			t.Errorf("error %q does not name the partition, device and vector", err)
		}
		if err := m.leaks(); err != nil {
			t.Error(err)
		}
	})
}

func TestBasesThatDoNotFitFailAtOnceSayingWhatAndHowMuch(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	info := &device.Info{Index: 0, Name: "fake H200", MemTotal: 80 << 30, MemFree: 1 << 20}
	t.Run("g1", func(t *testing.T) {
		// g1.z, g1.k and g1.a load (densest first), g1.b does not fit.
		m := &fakeMem{Backend: cpuBackend(t, 1), info: info, failLoad: func(key string) bool { return strings.HasSuffix(key, "/g1.b") }}
		job, err := set.NewJob(1, 11)
		if err != nil {
			t.Fatal(err)
		}
		_, rec, err := runTwoLock(t, job, m, nil)
		if err == nil {
			t.Fatal("job succeeded with bases that do not fit")
		}
		if stages.IsRetryable(err) || !errors.Is(err, groth16.ErrBasesDoNotFit) || !errors.Is(err, device.ErrOutOfMemory) {
			t.Errorf("error %v: want ErrBasesDoNotFit and ErrOutOfMemory, not retryable", err)
		}
		want := fmt.Sprintf(`partition 0 device 0: proving key bases do not fit in device memory \(not retryable\): `+
			`g1\.b of key %q needs [0-9.]+ KiB \(%d points of 96 bytes\) on device 0 \(fake H200\), 1\.0 MiB free of 80\.0 GiB; `+
			`the key's G1 bases need [0-9.]+ KiB in all; already resident: g1\.z, g1\.k, g1\.a; `+
			`bases stay resident until the backend is closed, so retrying cannot help`,
			regexp.QuoteMeta(job.BasesKey), len(set.PK.G1.B))
		if !regexp.MustCompile(want).MatchString(err.Error()) {
			t.Errorf("error %q\ndoes not match %q", err, want)
		}
		t.Logf("the error: %v", err)
		if all, _ := runs(rec, "vram_stage"); all != 1 {
			t.Errorf("vram_stage ran %d times, want 1 (retrying cannot help)", all)
		}
		if err := m.leaks(); err != nil {
			t.Error(err)
		}
	})
	t.Run("g2 on device", func(t *testing.T) {
		m := &fakeMem{Backend: cpuBackend(t, 1), failLoad: func(key string) bool { return strings.HasSuffix(key, "/g2.b") }}
		job, err := set.NewJob(1, 12)
		if err != nil {
			t.Fatal(err)
		}
		_, err = runSequential(t, job, m, func(typ string, c stages.Config) {
			if gc, ok := c.(*groth16.G2Config); ok {
				gc.On = "device"
			}
		})
		if err == nil {
			t.Fatal("job succeeded with G2 bases that do not fit")
		}
		if stages.IsRetryable(err) || !errors.Is(err, groth16.ErrBasesDoNotFit) {
			t.Errorf("error %v: want ErrBasesDoNotFit, not retryable", err)
		}
		for _, want := range []string{"partition 0 device 0: g2 msm: ", "g2.b of key", "points of 192 bytes", "free memory unknown", "b_g2_msm runs on: device"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
	})
}

// With b_g2_msm on the device (groth16.yaml --set g2_on=device), its
// allocation and MSM can run out of device memory like vram_stage's: the
// error is Retryable, and the shipped pipeline retries it instead of
// failing the job.
func TestOutOfMemoryInG2OnDeviceIsRetriedByTheRecommendedPipeline(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	nB, n := len(set.PK.G1.B), int(set.PK.Domain.Cardinality)
	if nB == n {
		t.Fatalf("the G2 scalars (%d) cannot be told from vram_stage's a (%d) by size", nB, n)
	}
	var g2Fails int
	mem := &fakeMem{Backend: cpuBackend(t, 1)}
	mem.failAlloc = func(call, size int) bool {
		// The first allocation of b_g2_msm's stream, twice in all.
		if call == 1 && size == nB && g2Fails < 2 {
			g2Fails++
			return true
		}
		return false
	}
	job, err := set.NewJob(2, 5)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"g2_on": "device", "partitions": "2"})
	if err != nil {
		t.Fatal(err)
	}
	rec := stagetest.NewRecorder()
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 1, Backend: mem})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "g2-oom", Partitions: 2, Payload: job})
	if err != nil {
		t.Fatalf("job failed on a retryable out-of-memory error in b_g2_msm: %v", err)
	}
	verifyAll(t, job, res)
	if all, failed := runs(rec, "b_g2_msm"); failed != 2 || all != 4 {
		t.Errorf("b_g2_msm ran %d times, %d failed; want 4 and 2", all, failed)
	}
	if err := mem.leaks(); err != nil {
		t.Error(err)
	}
}

// With bases: host (--set bases=host), a device on which no resident
// bases fit still proves: the key's G1 and G2 bases stay in host memory,
// nothing is loaded resident, every proof verifies and nothing leaks. A
// device that cannot keep bases on the host says so.
func TestBasesKeptOnTheHostProveWhereNoneFitOnTheDevice(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	never := func(string) bool { return true }
	m := &fakeMem{Backend: cpuBackend(t, 1), failLoad: never, hostBases: true}
	job, err := set.NewJob(3, 21)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := runTwoLock(t, job, m, map[string]string{"bases": "host", "g2_on": "device"})
	if err != nil {
		t.Fatal(err)
	}
	verifyAll(t, job, res)
	if m.loadCalls != 0 {
		t.Errorf("%d resident loads with bases: host, want 0", m.loadCalls)
	}
	if err := m.leaks(); err != nil {
		t.Error(err)
	}

	m = &fakeMem{Backend: cpuBackend(t, 1), failLoad: never}
	job, err = set.NewJob(1, 22)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = runTwoLock(t, job, m, map[string]string{"bases": "host"})
	if err == nil || !strings.Contains(err.Error(), "cannot keep a key's bases in host memory") {
		t.Fatalf("bases: host on a device without cdev.HostBases: %v", err)
	}
}
