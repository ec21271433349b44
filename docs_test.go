package prooflane_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// Every ```go block in the README and docs/ is code that compiles: its
// lines appear, in order and together, in a .go file of the module (an
// Example function that `go test` runs, or the package itself). A snippet
// that drifted from the code (a variable used and never defined) fails
// here, naming its place.
func TestDocSnippetsAreCompiledCode(t *testing.T) {
	docs := append(docFiles(t), "README.md")
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
		t.Errorf("checked %d go blocks; the README, docs/groth16.md and docs/stages.md have at least 3", checked)
	}
}

// Every relative link in the repository's Markdown resolves: the file
// (or folder) exists, and a #fragment names a heading of the file it
// points to, as GitHub makes anchors of headings.
func TestDocLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	checked := 0
	for _, doc := range markdownFiles(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(string(b)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				if err := resolveLink(doc, target); err != nil {
					t.Errorf("%s:%d: link %q: %v", doc, i+1, target, err)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d relative links; the README and docs/ have more", checked)
	}
}

func TestReadmeIsAtMost250Lines(t *testing.T) {
	if n := lineCount(t, "README.md"); n > 250 {
		t.Errorf("README.md has %d lines, more than 250: move the detail to docs/", n)
	}
}

func TestDocsAreAtMost600LinesEach(t *testing.T) {
	for _, doc := range docFiles(t) {
		if n := lineCount(t, doc); n > 600 {
			t.Errorf("%s has %d lines, more than 600: split it", doc, n)
		}
	}
}

// The repository speaks of the product: no file a user reads (docs,
// scripts, code and its comments, pipelines) holds the syntax of a remote
// execution call, the machine kinds of a lending system, internal work
// item numbers, counters of attempts or version labels of attempts. The
// patterns are assembled here so that this file does not match them.
func TestRepositorySpeaksOfTheProduct(t *testing.T) {
	for _, p := range productSpeechRules {
		for _, bad := range p.bad {
			if !p.matches(bad) {
				t.Errorf("rule %q does not catch %q", p.what, bad)
			}
		}
		for _, good := range p.good {
			if p.matches(good) {
				t.Errorf("rule %q catches %q, which is fine", p.what, good)
			}
		}
	}
	exts := map[string]bool{".md": true, ".sh": true, ".go": true, ".cu": true, ".cuh": true, ".h": true, ".cpp": true, ".yaml": true, ".yml": true}
	scanned := 0
	for _, path := range repoFiles(t) {
		if !exts[filepath.Ext(path)] && filepath.Base(path) != "Makefile" {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for n := 1; sc.Scan(); n++ {
			for _, p := range productSpeechRules {
				if p.matches(sc.Text()) {
					t.Errorf("%s:%d: %s: %s", path, n, p.what, strings.TrimSpace(sc.Text()))
				}
			}
		}
		if err := sc.Err(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		f.Close()
		scanned++
	}
	if scanned < 100 {
		t.Errorf("scanned %d files; the repository has more", scanned)
	}
}

// speechRule is a pattern the repository's files must not match, with
// examples it must catch and examples it must let through.
type speechRule struct {
	what      string
	re        *regexp.Regexp
	bad, good []string
}

func (r speechRule) matches(line string) bool {
	for _, m := range r.re.FindAllStringIndex(line, -1) {
		// A semantic version (a v, a number, a dot and a number) is a
		// release, not a label.
		if r.what == "version label of an attempt" && m[1]+1 < len(line) && line[m[1]] == '.' && unicode.IsDigit(rune(line[m[1]+1])) {
			continue
		}
		return true
	}
	return false
}

var (
	ordinal = `(\w+-)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|\w+tieth)`

	productSpeechRules = []speechRule{
		{
			what: "remote execution call",
			re:   regexp.MustCompile(`\b` + `run` + `\(\s*(command|kind|carry)\s*:` + `|` + `carry` + `:\s*\[`),
			bad:  []string{`run` + `(command: "bash x.sh", ` + `carry` + `: ["build"])`, `  ` + `carry` + `: ["build/gpu"]`, `run` + `(kind: "x")`},
			good: []string{`e.Run(ctx, job)`, `the carry chains`, `run(ctx)`},
		},
		{
			what: "machine kind of a lending system",
			re:   regexp.MustCompile(`(?i)\bnvidia-h[0-9]+`),
			bad:  []string{"on " + "nvidia-" + "h200-x2", "kind " + "nvidia-" + "h100-x1"},
			good: []string{"one NVIDIA H200", "an H100 80GB", "nvidia-smi"},
		},
		{
			what: "internal work item number",
			re:   regexp.MustCompile(`(?i)\bissues? #?[0-9]+`),
			bad:  []string{"see " + "issue" + " 16", "issue" + " #14's rows", "Issue" + "s 12"},
			good: []string{"issue slots 37% busy", "loads issued 40 at a time", "an issue of the kernel"},
		},
		{
			what: "counter of attempts",
			re:   regexp.MustCompile(`(?i)\b` + ordinal + `\s+(session|build)\b` + `|\b[0-9]+(st|nd|rd|th)\s+(session|build)\b`),
			bad:  []string{"the " + "twenty-sixth" + " build", "Sixteenth" + " session", "the " + "9th" + " session"},
			good: []string{"the first call's result", "a sixteenth of the quads", "a TLS session"},
		},
		{
			what: "version label of an attempt",
			re:   regexp.MustCompile(`\b` + `v` + `[0-9]{2}\b`),
			bad:  []string{"(" + "v" + "14 kernels)", "v" + "22: the lowest pass"},
			good: []string{"gnark v0.14.0", "Jaeger v2", "math/rand/v2", "CUDA " + "v" + "12.4", "yaml.v3"},
		},
	}
)

// resolveLink checks a relative link of doc: its file exists and its
// fragment, if any, is a heading's anchor there.
func resolveLink(doc, target string) error {
	path, frag, _ := strings.Cut(target, "#")
	file := doc
	if path != "" {
		file = filepath.Join(filepath.Dir(doc), filepath.FromSlash(path))
		st, err := os.Stat(file)
		if err != nil {
			return fmt.Errorf("no such file (%s)", file)
		}
		if st.IsDir() {
			if frag != "" {
				return fmt.Errorf("a fragment on a folder")
			}
			return nil
		}
	}
	if frag == "" || filepath.Ext(file) != ".md" {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	anchors := headingAnchors(string(b))
	if !anchors[frag] {
		return fmt.Errorf("no heading with anchor #%s in %s", frag, file)
	}
	return nil
}

// headingAnchors returns the anchors GitHub gives a Markdown file's
// headings: lowercased, backticks and punctuation other than - and _
// dropped, spaces made hyphens, a repeated anchor suffixed -1, -2, ...
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// proseLines returns md's lines with fenced code blocks blanked and
// inline code spans removed, so that code is never taken for a link or a
// heading; line numbers stay as they were.
func proseLines(md string) []string {
	lines := strings.Split(md, "\n")
	inline := regexp.MustCompile("`[^`]*`")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced || strings.HasPrefix(l, "    ") && !strings.HasPrefix(strings.TrimSpace(l), "-") {
			lines[i] = ""
			continue
		}
		lines[i] = inline.ReplaceAllString(l, "")
	}
	return lines
}

// repoFiles returns the module's files, less build outputs (what the
// repository's .gitignore names) and hidden folders.
func repoFiles(t *testing.T) []string {
	t.Helper()
	skip := map[string]bool{"bin": true, "build": true, "out": true, "keys": true, filepath.Join("cuda", "build"): true}
	var out []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || skip[path]) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// markdownFiles returns the repository's Markdown files.
func markdownFiles(t *testing.T) []string {
	var out []string
	for _, f := range repoFiles(t) {
		if filepath.Ext(f) == ".md" {
			out = append(out, f)
		}
	}
	return out
}

// docFiles returns the Markdown files under docs/.
func docFiles(t *testing.T) []string {
	var out []string
	for _, f := range markdownFiles(t) {
		if strings.HasPrefix(f, "docs"+string(filepath.Separator)) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatal("no Markdown files under docs/")
	}
	return out
}

func lineCount(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// goSources returns the code lines of every .go file in the module.
func goSources(t *testing.T) [][]string {
	var out [][]string
	for _, path := range repoFiles(t) {
		if !strings.HasSuffix(path, ".go") || strings.Contains(path, "testdata") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, codeLines(string(b)))
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
