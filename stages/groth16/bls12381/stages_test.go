package groth16_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"regexp"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	gnarkg16 "github.com/consensys/gnark/backend/groth16"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	"github.com/prooflane/prooflane/stages/stagetest"
)

func TestUnsatisfiedWitnessErrorNamesPartitionAndConstraint(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	ws, err := set.Witnesses(2, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	be := cpuBackend(t, 1)
	job, err := groth16.NewJob(set.Circuit, set.R1CS, set.PK, set.VK, ws)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runSequential(t, job, be, nil)
	if err == nil {
		t.Fatal("proved an unsatisfied witness")
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`circuit "chain" partition 0: witness does not satisfy the circuit`),
		regexp.MustCompile(`constraint #\d+ is not satisfied`),
	} {
		if !want.MatchString(err.Error()) {
			t.Errorf("error %q does not match %q", err, want)
		}
	}
}

func TestProofVerifiesWithGnarksGenericVerifierAndTamperingBreaksIt(t *testing.T) {
	set := setupKeys(t, "sha256", 1<<9)
	be := cpuBackend(t, 1)
	job, err := set.NewJob(2, 9)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := runSequential(t, job, be, nil)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := job.Public(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := gnarkg16.Verify(proofs[0], set.VK, pub); err != nil {
		t.Fatalf("gnark's groth16.Verify: %v", err)
	}
	tamper := map[string]func(p *g16.Proof){
		"Ar doubled":  func(p *g16.Proof) { p.Ar.Add(&p.Ar, &p.Ar) },
		"Krs negated": func(p *g16.Proof) { p.Krs.Neg(&p.Krs) },
		"Bs doubled":  func(p *g16.Proof) { p.Bs.Add(&p.Bs, &p.Bs) },
		"Ar and Krs swapped with partition 1": func(p *g16.Proof) {
			p.Ar, p.Krs = proofs[1].Ar, proofs[1].Krs
		},
	}
	for name, f := range tamper {
		p := *proofs[0]
		f(&p)
		if err := gnarkg16.Verify(&p, set.VK, pub); err == nil {
			t.Errorf("%s: tampered proof verifies", name)
		}
	}
	// Partition 1's proof does not prove partition 0's statement.
	if err := job.Verify(0, proofs[1]); err == nil {
		t.Error("partition 1's proof verifies partition 0's public inputs")
	}
}

func TestG2MSMOnDeviceMatchesCPU(t *testing.T) {
	set := setupKeys(t, "sha256", 1<<9)
	be := cpuBackend(t, 1)
	job, err := set.NewJob(2, 5)
	if err != nil {
		t.Fatal(err)
	}
	proveAndVerify(t, job, be, func(typ string, c stages.Config) {
		if gc, ok := c.(*groth16.G2Config); ok {
			gc.On = "device"
		}
	})
}

func TestCanonicalDevicePathProvesValidProofs(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	be := stagetest.Canonical(cpuBackend(t, 1)) // prep_msm converts, Upload converts back
	job, err := set.NewJob(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []string{"cpu", "device"} {
		t.Run("b_g2_msm on "+on, func(t *testing.T) {
			proveAndVerify(t, job, be, func(typ string, c stages.Config) {
				if gc, ok := c.(*groth16.G2Config); ok {
					gc.On = on
				}
			})
		})
	}
}

// oomBackend's streams fail every allocation above limit scalars.
type oomBackend struct {
	device.Backend
	limit int
}

func (b oomBackend) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	return oomDevice{d, b.limit}, err
}

type oomDevice struct {
	cdev.Device
	limit int
}

func (d oomDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	return oomStream{s, d.limit}, err
}

type oomStream struct {
	cdev.Stream
	limit int
}

func (s oomStream) Alloc(n int) (device.Vector, error) {
	if n > s.limit {
		return nil, fmt.Errorf("alloc %d: %w", n, device.ErrOutOfMemory)
	}
	return s.Stream.Alloc(n)
}

func TestDeviceOutOfMemoryIsRetryable(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	be := oomBackend{cpuBackend(t, 1), 8}
	job, err := set.NewJob(1, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runSequential(t, job, be, nil)
	if !stages.IsRetryable(err) || !errors.Is(err, device.ErrOutOfMemory) {
		t.Fatalf("error %v: want a retryable out-of-memory error", err)
	}
	if !strings.Contains(err.Error(), "partition 0 device 0") {
		t.Errorf("error %q does not name the partition and device", err)
	}
}

func TestAssembleIsDeterministicInRAndSAndEveryChoiceVerifies(t *testing.T) {
	// Two proofs of the same witness with the same r, s are the same
	// point triple; with different r, s they differ but both verify.
	set := setupKeys(t, "mimc", 1<<9)
	be := cpuBackend(t, 1)
	job, err := set.NewJob(1, 11)
	if err != nil {
		t.Fatal(err)
	}
	g1, g2 := msmsOf(t, job, be)
	var r, s fr.Element
	r.SetUint64(5)
	s.SetUint64(7)
	a, b := groth16.Assemble(set.PK, g1, g2, r, s), groth16.Assemble(set.PK, g1, g2, r, s)
	if !a.Ar.Equal(&b.Ar) || !a.Krs.Equal(&b.Krs) || !a.Bs.Equal(&b.Bs) {
		t.Fatal("Assemble is not deterministic in r, s")
	}
	s.SetUint64(8)
	c := groth16.Assemble(set.PK, g1, g2, r, s)
	if c.Krs.Equal(&a.Krs) {
		t.Error("Krs does not depend on s")
	}
	for _, p := range []*g16.Proof{a, c} {
		if err := job.Verify(0, p); err != nil {
			t.Error(err)
		}
	}
}

// msmsOf runs the stages before epilogue for partition 0, on be.
func msmsOf(t *testing.T, job *groth16.Job, be device.Backend) (*groth16.G1MSMs, *groth16.G2MSM) {
	t.Helper()
	reg := stages.NewRegistry().MustRegister(groth16.Factories()...)
	values := map[stages.DataType]any{}
	for _, typ := range dagOrder[:5] {
		f, _ := reg.Lookup(typ)
		var cfg stages.Config
		if f.NewConfig != nil {
			cfg = f.NewConfig()
		}
		st, err := f.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		startStage(t, typ, st, be)
		in := stages.NewInput(values)
		in.Job, in.Stage = job, typ
		out, err := st.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		values[f.Output] = out
	}
	return values[groth16.TypeG1MSMs].(*groth16.G1MSMs), values[groth16.TypeG2MSM].(*groth16.G2MSM)
}

// countingBackend counts stream closes and vector frees.
type countingBackend struct {
	device.Backend
	mu            *sync.Mutex
	frees, closes *int
}

func (b countingBackend) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	return countingDevice{d, b}, err
}

type countingDevice struct {
	cdev.Device
	b countingBackend
}

func (d countingDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	return countingStream{s, d.b}, err
}

type countingStream struct {
	cdev.Stream
	b countingBackend
}

func (s countingStream) Free(v device.Vector) {
	s.b.mu.Lock()
	*s.b.frees++
	s.b.mu.Unlock()
	s.Stream.Free(v)
}

func (s countingStream) Close() error {
	s.b.mu.Lock()
	*s.b.closes++
	s.b.mu.Unlock()
	return s.Stream.Close()
}

func TestBuffersNeverConsumedAreFreedOnceGarbage(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	var mu sync.Mutex
	var frees, closes int
	be := countingBackend{cpuBackend(t, 1), &mu, &frees, &closes}
	job, err := set.NewJob(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Partition 0 runs through gpu_compute: six frees, one close, and the
	// cleanup must not free anything again.
	if _, err := runSequential(t, job, be, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if frees != 12 || closes != 2 {
		t.Errorf("after two partitions: %d frees, %d closes; want 12, 2", frees, closes)
	}
	mu.Unlock()

	// Stop after vram_stage and drop the buffers, as a failed job does.
	reg := stages.NewRegistry().MustRegister(groth16.Factories()...)
	values := map[stages.DataType]any{}
	for _, typ := range []string{groth16.TypeNameSynthesize, groth16.TypeNamePrepMSM, groth16.TypeNameVRAMStage} {
		f, _ := reg.Lookup(typ)
		var cfg stages.Config
		if f.NewConfig != nil {
			cfg = f.NewConfig()
		}
		st, _ := f.New(cfg)
		startStage(t, typ, st, be)
		in := stages.NewInput(values)
		in.Job, in.Stage = job, typ
		out, err := st.Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		values[f.Output] = out
	}
	values = nil
	deadline := time.Now().Add(20 * time.Second)
	for {
		goruntime.GC()
		mu.Lock()
		f, c := frees, closes
		mu.Unlock()
		if c == 3 {
			if f != 18 {
				t.Errorf("cleanup freed %d vectors, want 6", f-12)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dropped buffers not released: %d frees, %d closes", f, c)
		}
		time.Sleep(10 * time.Millisecond)
	}
	goruntime.GC()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if frees != 18 || closes != 3 {
		t.Errorf("after the cleanup: %d frees, %d closes; want 18, 3 (released twice?)", frees, closes)
	}
}

func TestJobsShareResidentBasesOnlyForTheSameKeys(t *testing.T) {
	be := cpuBackend(t, 1)
	a := setupKeys(t, "chain", 1<<8)
	b, err := keys.Setup("chain", 1<<8) // same circuit and size, new keys
	if err != nil {
		t.Fatal(err)
	}
	ja1, _ := a.NewJob(1, 1)
	ja2, _ := a.NewJob(1, 2)
	jb, err := b.NewJob(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ja1.BasesKey != ja2.BasesKey {
		t.Errorf("two jobs of one key set: bases keys %q and %q", ja1.BasesKey, ja2.BasesKey)
	}
	if ja1.BasesKey == jb.BasesKey {
		t.Errorf("two key sets share the bases key %q", jb.BasesKey)
	}
	for _, j := range []*groth16.Job{ja1, jb} {
		proveAndVerify(t, j, be, nil)
	}
}

// A Job written as a struct literal (exported fields, no NewJob) lacks
// the count of public wires and may lack the bases key: every stage
// refuses it with an error saying to use NewJob, instead of prep_msm
// indexing past the K vector or two key sets sharing resident bases.
func TestAJobNotBuiltByNewJobIsRefusedByEveryStage(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	be := cpuBackend(t, 1)
	good, err := set.NewJob(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	literal := &groth16.Job{Circuit: good.Circuit, R1CS: good.R1CS, PK: good.PK, VK: good.VK,
		Witnesses: good.Witnesses}
	_, err = runSequential(t, literal, be, nil)
	if err == nil || !strings.Contains(err.Error(), "not built by groth16.NewJob") {
		t.Fatalf("error %v, want a job not built by NewJob", err)
	}
	proveAndVerify(t, good, be, nil)
}

// A proving key whose infinity flags disagree with its bases (a flipped
// flag in a corrupt cache file, read back unchecked) is refused by
// NewJob; prep_msm would otherwise index past the bases' scalar vector in
// one of its goroutines, a panic that kills the process.
func TestProvingKeyWithInfinityFlagsThatDisagreeWithItsBasesIsRefused(t *testing.T) {
	set := setupKeys(t, "chain", 1<<8)
	pk := *set.PK
	pk.InfinityA = append([]bool(nil), set.PK.InfinityA...)
	flipped := -1
	for i, inf := range pk.InfinityA {
		if inf {
			pk.InfinityA[i], flipped = false, i
			break
		}
	}
	if flipped < 0 {
		t.Fatal("no wire with an infinite A base to flip")
	}
	ws, err := set.Witnesses(1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = groth16.NewJob(set.Circuit, set.R1CS, &pk, set.VK, ws)
	if err == nil || !strings.Contains(err.Error(), "do not match its infinity flags") {
		t.Fatalf("error %v, want the infinity flags refused", err)
	}
	be := cpuBackend(t, 1)
	job, err := set.NewJob(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	proveAndVerify(t, job, be, nil)
}

// The synthesize span says which solver found the wires: the small one for
// sha256, the field solver for chain (dense values, a constraint a
// level), gnark's for emulated (commitments and lookups); the proofs of
// all three verify (runSequential's epilogue checks them).
func TestTheSynthesizeSpanNamesItsSolver(t *testing.T) {
	for circuit, want := range map[string]string{"sha256": "small", "chain": "field", "emulated": "gnark"} {
		set := setupKeys(t, circuit, 1<<9)
		ws, err := set.Witnesses(1, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		job, err := groth16.NewJob(set.Circuit, set.R1CS, set.PK, set.VK, ws)
		if err != nil {
			t.Fatal(err)
		}
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		ctx, span := tp.Tracer("test").Start(context.Background(), "synthesize")
		f := newStageSet(t, cpuBackend(t, 1), nil).built[groth16.TypeNameSynthesize]
		in := stages.NewInput(nil)
		in.Job, in.Stage, in.JobID = job, "synthesize", "test"
		if _, err := f.Run(ctx, in); err != nil {
			t.Fatal(err)
		}
		span.End()
		got := ""
		for _, kv := range rec.Ended()[0].Attributes() {
			if kv.Key == pl.KeySolver {
				got = kv.Value.AsString()
			}
		}
		if got != want {
			t.Errorf("%s: solver %q, want %q", circuit, got, want)
		}
		if _, err := runSequential(t, job, cpuBackend(t, 1), nil); err != nil {
			t.Errorf("%s: %v", circuit, err)
		}
	}
}
