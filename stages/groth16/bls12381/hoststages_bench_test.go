package groth16_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/logger"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/stages"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
)

// BenchmarkHostStages times the host work of one partition, stage by
// stage, outside the GPU: each stage's Run is called as the engine calls
// it, on an Input holding what its dependencies made for partition 0
// (computed once, untimed, and kept across -count runs). The stages:
//
//	synthesize  the R1CS solve (sha256: the small solver; chain: the field solver)
//	prep_msm    the MSM scalar vectors from the wires
//	b_g2_msm    g2_on: cpu: the G2 MSM of B on the host, ones added
//	epilogue    proof assembly and gnark's verifier
//
// Each iteration's output is checked, untimed (the wires, prep_msm's
// scalars and the G2 result against the first run's, every proof with
// gnark's verifier), so a change that makes a stage faster by making it
// wrong fails the benchmark.
//
//	go test -run '^$' -bench BenchmarkHostStages -benchmem -count 6 -timeout 60m ./stages/groth16/
//
// Sizes 2^16 and 2^20; PROOFLANE_BENCH_HOST_2_22=1 adds 2^22.
// PROOFLANE_BENCH_KEYS names the key cache (as BenchmarkProveVsGnark).
func BenchmarkHostStages(b *testing.B) {
	logger.Disable()
	sizes := []int{1 << 16, 1 << 20}
	if os.Getenv("PROOFLANE_BENCH_HOST_2_22") == "1" {
		sizes = append(sizes, 1<<22)
	}
	for _, circuit := range []string{"chain", "sha256"} {
		for _, size := range sizes {
			b.Run(fmt.Sprintf("circuit=%s/size=2^%d", circuit, log2(size)), func(b *testing.B) {
				benchHostStages(b, circuit, size)
			})
		}
	}
}

// hostBench is one circuit and size's job, stages and the outputs of
// partition 0 computed so far, kept across -count runs so that the
// untimed setup (a 2^20 G2 MSM on the CPU takes seconds) runs once.
type hostBench struct {
	job    *groth16.Job
	st     *stageSet
	values map[stages.DataType]any
	ran    int // stages of dagOrder run into values
}

var hostBenches = map[string]*hostBench{}

// upTo runs the stages before typ in dagOrder, once: afterwards values
// holds every input of typ.
func (h *hostBench) upTo(b *testing.B, typ string) {
	for ; h.ran < len(dagOrder) && dagOrder[h.ran] != typ; h.ran++ {
		t := dagOrder[h.ran]
		out, err := h.st.run(h.job, t, h.values)
		if err != nil {
			b.Fatal(err)
		}
		h.values[h.st.output(t)] = out
	}
}

func benchHostStages(b *testing.B, circuit string, size int) {
	key := fmt.Sprintf("%s-%d", circuit, size)
	h := hostBenches[key]
	if h == nil {
		set := benchKeys(b, circuit, size)
		job, err := set.NewJob(1, 1)
		if err != nil {
			b.Fatal(err)
		}
		be, err := cpu.New(1)
		if err != nil {
			b.Fatal(err)
		}
		// be lives as long as the benchmark binary, as hostBenches does.
		st := newStageSet(b, be, func(typ string, c stages.Config) {
			if gc, ok := c.(*groth16.G2Config); ok {
				gc.On = "cpu"
			}
		})
		h = &hostBench{job: job, st: st, values: map[stages.DataType]any{}}
		hostBenches[key] = h
	}
	// Each stage's output from its first run, the reference for the
	// timed runs'.
	first := map[stages.DataType]any{}
	bench := func(typ string, check func(got, first any)) {
		b.Run("stage="+typ, func(b *testing.B) {
			h.upTo(b, typ)
			if first[h.st.output(typ)] == nil {
				out, err := h.st.run(h.job, typ, h.values)
				if err != nil {
					b.Fatal(err)
				}
				first[h.st.output(typ)] = out
				check(out, out)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := h.st.run(h.job, typ, h.values)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				check(out, first[h.st.output(typ)])
				b.StartTimer()
			}
		})
	}
	bench(groth16.TypeNameSynthesize, func(got, first any) {
		if g, f := got.(*groth16.Solution), first.(*groth16.Solution); !slices.Equal(g.Wires, f.Wires) {
			b.Fatal("wires differ from the first run's")
		}
	})
	bench(groth16.TypeNamePrepMSM, func(got, first any) {
		if err := sameMSMInputs(got.(*groth16.MSMInputs), first.(*groth16.MSMInputs)); err != nil {
			b.Fatal(err)
		}
	})
	bench(groth16.TypeNameBG2MSM, func(got, first any) {
		if g, f := got.(*groth16.G2MSM), first.(*groth16.G2MSM); !g.B.Equal(&f.B) {
			b.Fatal("g2 msm differs from the first run's")
		}
	})
	bench(groth16.TypeNameEpilogue, func(got, _ any) {
		if err := h.job.Verify(0, got.(*g16.Proof)); err != nil {
			b.Fatal(err)
		}
	})
}

// stageSet is every Groth16 stage built from its factory with its
// default config (as configured) and started on a backend, for calling
// Run directly.
type stageSet struct {
	reg   *stages.Registry
	built map[string]stages.Stage
}

func newStageSet(t testing.TB, be device.Backend, configure func(typ string, c stages.Config)) *stageSet {
	t.Helper()
	s := &stageSet{reg: stages.NewRegistry().MustRegister(groth16.Factories()...), built: map[string]stages.Stage{}}
	for _, typ := range dagOrder {
		f, _ := s.reg.Lookup(typ)
		var cfg stages.Config
		if f.NewConfig != nil {
			cfg = f.NewConfig()
			if configure != nil {
				configure(typ, cfg)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
		}
		st, err := f.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		startStage(t, typ, st, be)
		s.built[typ] = st
	}
	return s
}

func (s *stageSet) output(typ string) stages.DataType {
	f, _ := s.reg.Lookup(typ)
	return f.Output
}

// run runs stage typ for job's partition 0 on device 0 with values as
// its inputs.
func (s *stageSet) run(job *groth16.Job, typ string, values map[stages.DataType]any) (any, error) {
	in := stages.NewInput(values)
	in.Job, in.Stage, in.Partition, in.Device, in.JobID = job, typ, 0, 0, "bench"
	return s.built[typ].Run(context.Background(), in)
}

// sameMSMInputs reports how got differs from want, or nil.
func sameMSMInputs(got, want *groth16.MSMInputs) error {
	if got.Form != want.Form || got.Zeros != want.Zeros {
		return fmt.Errorf("form %v zeros %d, want %v %d", got.Form, got.Zeros, want.Form, want.Zeros)
	}
	for name, ok := range map[string]bool{
		"A": slices.Equal(got.A, want.A), "B": slices.Equal(got.B, want.B), "K": slices.Equal(got.K, want.K),
		"BMont": slices.Equal(got.BMont, want.BMont),
		"OnesA": slices.Equal(got.OnesA, want.OnesA), "OnesB": slices.Equal(got.OnesB, want.OnesB), "OnesK": slices.Equal(got.OnesK, want.OnesK),
	} {
		if !ok {
			return fmt.Errorf("%s differs from the first run's", name)
		}
	}
	return nil
}
