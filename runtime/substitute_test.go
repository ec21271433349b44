package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/prooflane/prooflane/stages"
)

// A replaced stage keeps its place in the layout: test.where with
// device: true is device-bound by its config, and its replacement runs on
// the partition's device, while the pipeline itself is left untouched (a
// second engine on it runs the stage's own implementation).
func TestReplaceRunsTheSubstituteUnderTheStagesOwnBinding(t *testing.T) {
	p := mustParse(t, `
pipeline: replaced
devices: 2
stages:
  host: {type: test.where}
  dev: {type: test.where, needs: [host], config: {device: true}}
`)
	var mu sync.Mutex
	ran := map[string][]int{} // stage -> devices its replacement saw
	asked := map[string]bool{}
	e := mustEngine(t, p, Options{Replace: func(s *Stage) (stages.Stage, error) {
		asked[s.Name] = s.DeviceBound
		return stageFunc(func(_ context.Context, in *stages.Input) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			ran[in.Stage] = append(ran[in.Stage], in.Device)
			return "replaced", nil
		}), nil
	}})
	res, err := e.Run(context.Background(), Job{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !asked["dev"] || asked["host"] {
		t.Errorf("Replace saw device binding %v, want dev bound and host not", asked)
	}
	if len(ran["host"]) != 2 || len(ran["dev"]) != 2 {
		t.Fatalf("replacements ran %v, want each stage twice", ran)
	}
	for _, d := range ran["dev"] {
		if d < 0 {
			t.Errorf("dev's replacement ran off any device: %v", ran["dev"])
		}
	}
	for _, pr := range res.Partitions {
		if pr.Outputs["dev"] != "replaced" {
			t.Errorf("partition %d: dev output %v, want the replacement's", pr.Index, pr.Outputs["dev"])
		}
	}
	// The pipeline is unchanged: an engine without Replace runs test.where.
	res, err = mustEngine(t, p, Options{}).Run(context.Background(), Job{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := res.Partitions[0].Outputs["dev"].(int); !ok || d < 0 {
		t.Errorf("without Replace dev output %v, want its device", res.Partitions[0].Outputs["dev"])
	}
}

// A nil replacement keeps the stage's own implementation; an error names
// the pipeline and the stage.
func TestReplaceKeepsNilAndNamesTheStageOnError(t *testing.T) {
	p := mustParse(t, `
pipeline: partly
stages:
  a: {type: test.where}
  b: {type: test.where, needs: [a]}
`)
	e := mustEngine(t, p, Options{Replace: func(s *Stage) (stages.Stage, error) {
		if s.Name == "a" {
			return stageFunc(func(context.Context, *stages.Input) (any, error) { return "a replaced", nil }), nil
		}
		return nil, nil
	}})
	res, err := e.Run(context.Background(), Job{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out := res.Partitions[0].Outputs["b"]; out != -1 {
		t.Errorf("b output %v, want -1 from its own implementation", out)
	}
	_, err = NewEngine(p, Options{Replace: func(s *Stage) (stages.Stage, error) {
		if s.Name == "b" {
			return nil, errors.New("no recorded runs")
		}
		return nil, nil
	}})
	if err == nil || !strings.Contains(err.Error(), `pipeline "partly": stage "b": replacing its implementation: no recorded runs`) {
		t.Fatalf("err = %v", err)
	}
}
