package prooflane_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every ```go block in the README and docs/ is code that compiles: its
// lines appear, in order and together, in a .go file of the module (an
// Example function that `go test` runs, or the package itself). A snippet
// that drifted from the code (the README's `tp`, docs/groth16.md's
// `engine`, used and never defined) fails here, naming its place.
func TestDocSnippetsAreCompiledCode(t *testing.T) {
	docs, _ := filepath.Glob("docs/*.md")
	docs = append(docs, "README.md")
	sources := goSources(t)
	block := regexp.MustCompile("(?s)```go\n(.*?)```")
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllSubmatchIndex(b, -1) {
			line := 1 + strings.Count(string(b[:m[0]]), "\n")
			want := codeLines(string(b[m[2]:m[3]]))
			if !inAny(sources, want) {
				t.Errorf("%s:%d: this go block is in no .go file of the module; make it (a part of) an Example function that go test runs", doc, line)
			}
			checked++
		}
	}
	if checked < 3 {
		t.Errorf("checked %d go blocks; the README and docs/groth16.md have at least 3", checked)
	}
}

// goSources returns the code lines of every .go file in the module.
func goSources(t *testing.T) [][]string {
	var out [][]string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, codeLines(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// codeLines is src without indentation and blank lines.
func codeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func inAny(files [][]string, want []string) bool {
	for _, f := range files {
		for i := 0; i+len(want) <= len(f); i++ {
			if equal(f[i:i+len(want)], want) {
				return true
			}
		}
	}
	return false
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
