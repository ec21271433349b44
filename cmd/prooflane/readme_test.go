package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's full pipeline example must load: docs that show YAML the
// loader rejects would cost a user an evening.
func TestReadmePipelineExampleValidates(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	checked := 0
	for i, m := range blocks {
		if !strings.HasPrefix(m[1], "pipeline:") {
			continue // fragments
		}
		f := filepath.Join(t.TempDir(), "readme.yaml")
		if err := os.WriteFile(f, []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if rc, _, stderr := prooflane(t, "validate", f); rc != 0 {
			t.Errorf("README yaml block %d does not validate:\n%s", i, stderr)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no full pipeline example found in README.md")
	}
}
