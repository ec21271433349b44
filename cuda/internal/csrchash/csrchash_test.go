package csrchash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSumFollowsEveryHeaderAndSourceNamesIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("api.h", "int f();\n")
	write("csrc/a.cuh", "a\n")
	write("csrc/b.cuh", "b\n")
	write("csrc/c.cu", "not a header\n")
	sum := func() string {
		t.Helper()
		s, err := Sum(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := sum()
	write("csrc/c.cu", "changed, still not a header\n")
	if sum() != first {
		t.Error("a .cu file changed the headers' hash")
	}
	for _, edit := range [][2]string{{"csrc/a.cuh", "a2\n"}, {"api.h", "int g();\n"}, {"csrc/new.cuh", "\n"}} {
		before := sum()
		write(edit[0], edit[1])
		if sum() == before {
			t.Errorf("editing %s left the hash as it was", edit[0])
		}
	}
	// Moving bytes between two files changes it too: names and lengths
	// are hashed with the contents.
	write("csrc/a.cuh", "ab")
	write("csrc/b.cuh", "")
	x := sum()
	write("csrc/a.cuh", "a")
	write("csrc/b.cuh", "b")
	if sum() == x {
		t.Error("moving a byte from one header to the next left the hash as it was")
	}
	if src := Source(first); !strings.Contains(src, `const csrcHash = "`+first+`"`) || !strings.HasPrefix(src, "//go:build cudahost\n") {
		t.Errorf("Source:\n%s", src)
	}
	if _, err := Sum(filepath.Join(dir, "missing")); err == nil {
		t.Error("Sum of a folder without api.h: no error")
	}
}
