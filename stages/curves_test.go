package stages_test

import (
	"context"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/stages"
)

// curveJob is a job payload of one curve.
type curveJob ecc.ID

func (j curveJob) Curve() ecc.ID { return ecc.ID(j) }

// said is a stage that returns its name, and records its Start and
// Shutdown.
type said struct {
	name    string
	started *[]string
}

func (s said) Run(context.Context, *stages.Input) (any, error) { return s.name, nil }
func (s said) Start(context.Context, stages.Host) error {
	*s.started = append(*s.started, "start "+s.name)
	return nil
}
func (s said) Shutdown(context.Context) error {
	*s.started = append(*s.started, "stop "+s.name)
	return nil
}

func factory(name string, log *[]string) stages.Factory {
	return stages.Factory{Type: "fam.stage", Output: "fam.out",
		New: func(stages.Config) (stages.Stage, error) { return said{name, log}, nil }}
}

// A merged stage type runs the stage of its job's curve, starts and
// shuts down every curve's, and refuses a job that names no curve or a
// curve it has no stage of.
func TestByCurveRunsTheStageOfTheJobsCurve(t *testing.T) {
	var log []string
	fs, err := stages.ByCurve(
		stages.CurveFactories{Curve: ecc.BLS12_381, Factories: []stages.Factory{factory("bls", &log)}},
		stages.CurveFactories{Curve: ecc.BN254, Factories: []stages.Factory{factory("bn", &log)}},
	)
	if err != nil || len(fs) != 1 || fs[0].Type != "fam.stage" {
		t.Fatalf("ByCurve = %v, %v", fs, err)
	}
	s, err := fs[0].New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.(stages.Starter).Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for job, want := range map[curveJob]string{curveJob(ecc.BLS12_381): "bls", curveJob(ecc.BN254): "bn"} {
		in := stages.NewInput(nil)
		in.Job = job
		if got, err := s.Run(ctx, in); err != nil || got != want {
			t.Errorf("job of %s ran %v, %v; want %s", ecc.ID(job), got, err, want)
		}
	}
	for _, job := range []any{"no curve", curveJob(ecc.BW6_761)} {
		in := stages.NewInput(nil)
		in.Job, in.Stage = job, "s1"
		if _, err := s.Run(ctx, in); err == nil || !strings.Contains(err.Error(), `stage "s1"`) {
			t.Errorf("job %v: %v, want an error naming the stage", job, err)
		}
	}
	if err := s.(stages.Stopper).Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, ", "); got != "start bls, start bn, stop bls, stop bn" {
		t.Errorf("lifecycle %q", got)
	}
}

// Curves whose factories declare different stages are refused, naming
// the type and both curves.
func TestByCurveRefusesDifferentDeclarations(t *testing.T) {
	var log []string
	other := factory("bn", &log)
	other.Inputs = []stages.DataType{"fam.in"}
	_, err := stages.ByCurve(
		stages.CurveFactories{Curve: ecc.BLS12_381, Factories: []stages.Factory{factory("bls", &log)}},
		stages.CurveFactories{Curve: ecc.BN254, Factories: []stages.Factory{other}},
	)
	if err == nil || !strings.Contains(err.Error(), `"fam.stage"`) || !strings.Contains(err.Error(), "bn254") {
		t.Errorf("ByCurve of different declarations: %v", err)
	}
	if _, err := stages.ByCurve(); err == nil {
		t.Error("ByCurve of no curve succeeded")
	}
}
