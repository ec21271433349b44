package runtime

import (
	"errors"
	"flag"
	"fmt"
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

// chainPipeline is a chain of n sim stages with one span over all of them.
func chainPipeline(n int) []byte {
	var b strings.Builder
	b.WriteString("pipeline: chain\nresources:\n  gpu.{gpu}.mem: {}\nstages:\n  s0: {type: sim.sleep}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  s%d: {type: sim.sleep, needs: [s%d]}\n", i, i-1)
	}
	fmt.Fprintf(&b, "spans:\n  - {lock: \"gpu.{gpu}.mem\", from: s0, to: s%d}\n", n-1)
	return []byte(b.String())
}

// Validating a 20,000-stage chain with a span is near-linear: it took 65 s
// when span coverage and input resolution walked every stage's ancestors.
// The 20 s bound is a hang guard, not a speed figure (that is
// BenchmarkValidateChain).
func TestLongChainWithASpanValidatesInLinearTime(t *testing.T) {
	src, reg := chainPipeline(20_000), testRegistry(t)
	done := make(chan error, 1)
	go func() {
		p, err := Parse("chain.yaml", src, reg, nil)
		if err == nil && len(p.Spans[0].Covered) != 20_000 {
			err = fmt.Errorf("span covers %d stages, want 20000", len(p.Spans[0].Covered))
		}
		if err == nil {
			_, err = NewEngine(p, Options{})
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("validating a 20,000-stage chain took over 20 s (quadratic again?)")
		<-done
	}
}

// Counts from --set are held to the same limits as the file's, before the
// engine allocates a result per partition (9223372036854775807 used to
// panic in makeslice, 4294967296 ran out of memory).
func TestSetPartitionsAboveTheLimitIsAProblem(t *testing.T) {
	src := []byte("pipeline: p\nstages:\n  a: {type: sim.sleep}\n")
	for _, v := range []string{"9223372036854775807", "4294967296", "10001", "99999999999999999999"} {
		_, err := Parse("p.yaml", src, testRegistry(t), map[string]string{"partitions": v})
		want := "p.yaml: --set partitions: " + v + " is above 10000, the limit on partitions per job"
		if err == nil || err.Error() != want {
			t.Errorf("--set partitions=%s: err = %v, want %q", v, err, want)
		}
	}
	if _, err := Parse("p.yaml", src, testRegistry(t), map[string]string{"partitions": "10000"}); err != nil {
		t.Errorf("--set partitions=10000: %v", err)
	}
}

// Load reads at most MaxPipelineBytes of a regular file, naming the
// limit; a pipeline named /dev/zero (or any endless device) is refused
// as not a regular file, instead of read until memory runs out.
func TestLoadRefusesAFileAboveTheSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	big := append([]byte("pipeline: big\n# "), make([]byte, MaxPipelineBytes)...)
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{
		path:        path + ": larger than the limit of 1 MiB for a pipeline file",
		"/dev/zero": "/dev/zero: a device, not a regular file",
	} {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		_, err := Load(f, testRegistry(t), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want %q", f, err, want)
		}
	}
}
