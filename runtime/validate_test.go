package runtime

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/stages"
)

var update = flag.Bool("update", false, "rewrite testdata/invalid/*.err from the loader's output")

// Each testdata/invalid/NAME.yaml must fail to load with exactly the
// problems in NAME.err, one per line.
func TestInvalidPipelinesReportEveryProblemWithPosition(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	reg := testRegistry(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f, reg, nil)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Load = %v, want a *ValidationError", err)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := readFile(t, golden); got != want {
				t.Errorf("problems:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestSetOverridesParamsAndRejectsUnknownOnes(t *testing.T) {
	src := []byte("pipeline: p\nparams: {partitions: 2, w: 1}\nstages:\n  a: {type: sim.sleep, workers: \"${w}\"}\n")
	p, err := Parse("p.yaml", src, testRegistry(t), map[string]string{"partitions": "7", "w": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Partitions != 7 || p.Stages[0].Workers != 3 {
		t.Errorf("partitions %d workers %d, want 7 and 3", p.Partitions, p.Stages[0].Workers)
	}
	_, err = Parse("p.yaml", src, testRegistry(t), map[string]string{"wokers": "3"})
	want := `p.yaml: --set wokers=3: the pipeline has no parameter "wokers"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
}

func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.yaml")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		checkParse(t, src, reg, nil)
	})
}

// The same with one --set override, as the commands pass them.
func FuzzParseWithOverride(f *testing.F) {
	seeds, _ := filepath.Glob("../pipelines/sim-*.yaml")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b, "partitions", "3")
		f.Add(b, "synth_workers", "${partitions}")
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, src []byte, name, value string) {
		checkParse(t, src, reg, map[string]string{name: value})
	})
}

// checkParse fails t unless Parse returns a pipeline or a validation error
// with at least one problem.
func checkParse(t *testing.T, src []byte, reg *stages.Registry, overrides map[string]string) {
	p, err := Parse("fuzz.yaml", src, reg, overrides)
	var ve *ValidationError
	switch {
	case err == nil && p == nil:
		t.Fatal("nil pipeline without an error")
	case err != nil && !errors.As(err, &ve):
		t.Fatalf("error is %T, want *ValidationError: %v", err, err)
	case err != nil && len(ve.Problems) == 0:
		t.Fatal("validation error with no problems")
	}
}

// The lock-order check must not reject what cannot deadlock: a branch
// beside a span that takes only later locks, stages that end before the
// span starts, and a branch the span's last stage does not wait for.
func TestLockOrderAcceptsBranchesThatCannotDeadlock(t *testing.T) {
	mustParse(t, `
pipeline: safe
resources:
  early: {}
  gpu.{gpu}.mem: {capacity: 2}
  late: {}
stages:
  prep: {type: sim.sleep, locks: [early, late]}
  upload: {type: sim.sleep, needs: [prep], locks: [early, {"gpu.{gpu}.mem": 1}]}
  host: {type: sim.sleep, needs: [prep], locks: [late]}
  report: {type: sim.sleep, needs: [prep], locks: [early]}
  finish: {type: sim.sleep, needs: [upload, host]}
spans:
  - {lock: "gpu.{gpu}.mem", from: upload, to: finish}
`)
}

type inlineBase struct {
	Duration time.Duration `yaml:"duration"`
}

type inlineConfig struct {
	inlineBase `yaml:",inline"`
	Extra      int `yaml:"extra"`
}

// A stage config that embeds shared options with yaml ",inline" takes their
// keys (yaml.v3 decodes them); only keys of no field are rejected.
func TestConfigKeysOfAnInlineStructAreKnown(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("{duration: 1s, extra: 2, bogus: 3}"), &doc); err != nil {
		t.Fatal(err)
	}
	ps := &problems{file: "x.yaml"}
	var cfg inlineConfig
	checkKeys(ps, doc.Content[0], reflect.TypeOf(&cfg), "config")
	if len(ps.list) != 1 || !strings.Contains(ps.list[0].Msg, `field "bogus" not recognised`) {
		t.Fatalf("problems %v, want only bogus rejected", ps.list)
	}
	doc.Content[0].Content = doc.Content[0].Content[:4] // drop bogus
	ps = &problems{file: "x.yaml"}
	if !decodeConfig(ps, doc.Content[0], &cfg, "config") || cfg.Duration != time.Second || cfg.Extra != 2 {
		t.Fatalf("decode: %v, cfg %+v", ps.list, cfg)
	}
}
