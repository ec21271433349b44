//go:build unix

package regfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it has not returned in a minute
// (a FIFO's open would block for ever).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
	}
}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// A FIFO with no writer, a directory or a device is refused at once,
// naming it; a regular file, through a link too, opens.
func TestOnlyRegularFilesOpenAndNothingBlocks(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	p := fifo(t)
	for _, c := range []struct {
		path, want string
		open       func(string) (*os.File, os.FileInfo, error)
	}{
		{p, "a named pipe, not a regular file", Open},
		{p, "a named pipe, not a regular file", OpenNoFollow},
		{dir, "a directory, not a regular file", Open},
		{"/dev/null", "a device, not a regular file", Open},
		{link, "a symbolic link, not a regular file", OpenNoFollow},
	} {
		within(t, c.path, func() {
			f, _, err := c.open(c.path)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.path+": "+c.want) {
				t.Errorf("%s: %v, want %q naming it", c.path, err, c.want)
			}
		})
	}
	for _, path := range []string{reg, link} {
		f, st, err := Open(path)
		if err != nil || st.Size() != 1 {
			t.Fatalf("%s: %v", path, err)
		}
		f.Close()
	}
	within(t, "ReadFile of a FIFO", func() {
		if _, err := ReadFile(p, 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile of a FIFO: %v", err)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file exists")
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestReadFileRefusesMoreThanItsLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("over the limit: %v", err)
	}
}

// A lock file is created, or opened; a symbolic link planted in its place
// is refused naming it, and its target is not created.
func TestOpenLockRefusesALinkAndCreatesNoTarget(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "a.lock")
	f, err := OpenLock(lock)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if f, err = OpenLock(lock); err != nil {
		t.Fatal(err)
	}
	f.Close()
	target := filepath.Join(dir, "target")
	planted := filepath.Join(dir, "b.lock")
	if err := os.Symlink(target, planted); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLock(planted); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), planted+": a symbolic link") {
		t.Errorf("planted link: %v, want it refused by name", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created (%v)", err)
	}
	within(t, "OpenLock of a FIFO", func() {
		if _, err := OpenLock(fifo(t)); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	})
}

// Reader reads in chunks and stops with the context's cause once it is
// done.
func TestReaderStopsWhenItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := Reader(ctx, zeros{})
	buf := make([]byte, 3*chunk)
	if n, err := r.Read(buf); err != nil || n != chunk {
		t.Fatalf("read %d, %v: want one chunk", n, err)
	}
	stop := errors.New("stop")
	cancel(stop)
	if _, err := io.ReadFull(r, buf); !errors.Is(err, stop) {
		t.Errorf("after cancel: %v, want the cause", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
