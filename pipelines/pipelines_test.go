package pipelines_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
)

// Every shipped file is embedded, listed with its description, and loads.
func TestEveryShippedPipelineIsEmbeddedAndLoads(t *testing.T) {
	shipped, _ := filepath.Glob("*.yaml")
	list := pipelines.List()
	if len(shipped) == 0 || len(list) != len(shipped) {
		t.Fatalf("%d files shipped, %d embedded", len(shipped), len(list))
	}
	for _, info := range list {
		disk, err := os.ReadFile(info.Name + ".yaml")
		if err != nil || info.Pipeline == "" || info.Summary == "" {
			t.Errorf("%+v: no such shipped file, or no name or description (%v)", info, err)
		}
		file, src, err := pipelines.Open(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if string(src) != string(disk) || file != "embedded:"+info.Name+".yaml" {
			t.Errorf("%s: embedded copy differs from the file, or named %q", info.Name, file)
		}
		if _, err := runtime.Parse(file, src, builtin.Registry(), nil); err != nil {
			t.Errorf("%s: %v", info.Name, err)
		}
	}
}

// A file that exists wins over an embedded name; a name works from any
// directory; problems in an embedded pipeline name its file, line and
// column.
func TestSourceResolvesPathsFirstThenEmbeddedNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("groth16", []byte("pipeline: mine\nstages:\n  a: {type: sim.sleep}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file, src, err := pipelines.Source("groth16")
	if err != nil || file != "groth16" || !strings.HasPrefix(string(src), "pipeline: mine") {
		t.Errorf("a file called groth16 should win: %q %v", file, err)
	}
	for _, name := range []string{"groth16.yaml", "sim-groth16"} {
		if file, _, err := pipelines.Source(name); err != nil || !strings.HasPrefix(file, "embedded:") {
			t.Errorf("Source(%q) = %q, %v; want the embedded one", name, file, err)
		}
	}
	file, src, err = pipelines.Source("groth16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runtime.Parse(file, src, builtin.Registry(), map[string]string{"resident": "0"})
	if err == nil || !strings.HasPrefix(err.Error(), "embedded:groth16.yaml:") || !strings.Contains(err.Error(), "capacity: must be at least 1, got 0") {
		t.Errorf("problem in an embedded pipeline: %v", err)
	}
	for _, bad := range []string{"nope", "../pipelines/groth16", "", "."} {
		_, _, err := pipelines.Source(bad)
		if err == nil {
			t.Errorf("Source(%q) found something", bad)
		}
	}
	if _, _, err := pipelines.Source("nope"); err == nil || !strings.Contains(err.Error(), `pipeline "nope": no such file, and no embedded pipeline of that name (embedded: groth16, `) {
		t.Errorf("missing pipeline: %v", err)
	}
	// A near miss names the closest embedded pipeline; both misses are
	// ErrNotFound, which a command reports as a mistake of the user's.
	for _, open := range []func(string) (string, []byte, error){pipelines.Source, pipelines.Open} {
		_, _, err := open("groth16-dual-workr")
		if !errors.Is(err, pipelines.ErrNotFound) || !strings.Contains(err.Error(), `"groth16-dual-workr"`) || !strings.Contains(err.Error(), `(did you mean "groth16-dual-worker"? embedded: groth16, `) {
			t.Errorf("near miss: %v", err)
		}
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, pipelines.MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pipelines.Source(big); err == nil || !strings.Contains(err.Error(), "over the limit of 1048576") {
		t.Errorf("oversized file: %v", err)
	}
}
