package durable

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteSyncsAndClosesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello" {
		t.Fatalf("file holds %q, %v", b, err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("file left open: second close gave %v", err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		t.Error(err)
	}
}

func TestWriteReturnsTheWritersErrorAndClosesTheFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(f, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("file left open after a failed write: %v", err)
	}
}

func TestWriteToAFullDiskFails(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	if err := Write(f, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err == nil {
		t.Error("a write to /dev/full succeeded")
	}
}

// WriteFile replaces a file whole: a write that fails leaves the old
// content and no temporary beside it; one that succeeds leaves the new
// content alone.
func TestWriteFileReplacesTheFileWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fail := errors.New("stop")
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return fail
	})
	if !errors.Is(err, fail) {
		t.Fatalf("error %v, want the write's", err)
	}
	check := func(want string) {
		t.Helper()
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("file holds %q (%v), want %q", b, err, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d entries in the directory, want the file alone", len(entries))
		}
	}
	check("old")
	if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	check("new")
}
