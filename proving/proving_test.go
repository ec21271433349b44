package proving

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/sim"
)

type fakeFamily struct {
	name  string
	proof stages.DataType
}

func (f fakeFamily) Name() string               { return f.name }
func (f fakeFamily) ProofType() stages.DataType { return f.proof }

type nop struct{}

func (nop) Run(context.Context, *stages.Input) (any, error) { return nil, nil }

// A stage registry with a.make (outputs a.proof), a.feed (reads a.proof),
// b.make and c.make (of no registered family), next to the sim types.
func parse(t *testing.T, src string) *runtime.Pipeline {
	t.Helper()
	reg := stages.NewRegistry().MustRegister(sim.Factories()...)
	for _, f := range []stages.Factory{
		{Type: "a.make", Output: "a.proof"},
		{Type: "a.feed", Inputs: []stages.DataType{"a.proof"}},
		{Type: "b.make", Output: "b.proof"},
		{Type: "c.make", Output: "c.proof"},
		{Type: "a.check", Output: "a.proof", NewConfig: func() stages.Config { return &checkConfig{Verify: true} }},
	} {
		f.Doc = "test"
		f.New = func(stages.Config) (stages.Stage, error) { return nop{}, nil }
		reg.MustRegister(f)
	}
	p, err := runtime.Parse("fam.yaml", []byte(src), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkConfig is a proof stage's config that says whether it verifies.
type checkConfig struct {
	Verify bool `yaml:"verify"`
}

func (*checkConfig) Validate() error        { return nil }
func (c *checkConfig) VerifiesOutput() bool { return c.Verify }

// StagesVerify holds when every final proof stage checks its proof (its
// config says so), and only then.
func TestStagesVerifyWhenEveryFinalProofStageChecks(t *testing.T) {
	f := fakeFamily{"a", "a.proof"}
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"pipeline: p\nstages:\n  c: {type: a.check}\n", true},
		{"pipeline: p\nstages:\n  c: {type: a.check, config: {verify: false}}\n", false},
		{"pipeline: p\nstages:\n  m: {type: a.make}\n", false},
		{"pipeline: p\nstages:\n  c: {type: a.check}\n  m: {type: a.make}\n", false},
		{"pipeline: p\nstages:\n  c: {type: a.check}\n  f: {type: a.feed, needs: [c]}\n", false},
	} {
		if got := StagesVerify(parse(t, c.src), f); got != c.want {
			t.Errorf("%q: %v, want %v", c.src, got, c.want)
		}
	}
}

func registry() *family.Registry {
	return family.NewRegistry().MustRegister(fakeFamily{"a", "a.proof"}, fakeFamily{"b", "b.proof"})
}

func TestOfFindsThePipelinesFamilyIgnoringGenericTypes(t *testing.T) {
	p := parse(t, "pipeline: one\nstages:\n  s: {type: sim.sleep, config: {duration: 1ms}}\n  m: {type: a.make, needs: [s]}\n")
	f, err := Of(p, registry())
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != "a" {
		t.Fatalf("family %q, want a", f.Name())
	}
	if got := FinalProofStages(p, f); !slices.Equal(got, []string{"m"}) {
		t.Errorf("final proof stages %v, want [m]", got)
	}
	fed := parse(t, "pipeline: fed\nstages:\n  m: {type: a.make}\n  f: {type: a.feed, needs: [m]}\n")
	if got := FinalProofStages(fed, f); len(got) != 0 {
		t.Errorf("a proof that feeds another stage is final: %v", got)
	}
}

func TestOfRefusesPipelinesOfNoOneRegisteredFamily(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"pipeline: gen\nstages:\n  s: {type: sim.sleep, config: {duration: 1ms}}\n",
			`fam.yaml: pipeline "gen" makes no proof: its stage types (sim.sleep) belong to no proof family (a, b)`},
		{"pipeline: mix\nstages:\n  m: {type: a.make}\n  n: {type: b.make}\n",
			`fam.yaml: pipeline "mix" mixes the stage types of families a and b`},
		{"pipeline: unknown\nstages:\n  m: {type: c.make}\n",
			`fam.yaml: pipeline "unknown": stage type prefix "c" is no registered proof family (a, b)`},
	} {
		_, err := Of(parse(t, c.src), registry())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
