//go:build unix

package ccsfile

import (
	"context"
	"errors"
	"github.com/consensys/gnark-crypto/ecc"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prooflane/prooflane/internal/regfile"
)

// A FIFO (with no writer: opening it for reading would block for ever),
// a symbolic link (even to a good file), a directory and a file over
// the limit are refused at once, naming the path; the one over the limit
// before anything of it is read.
func TestWhatIsNotARegularFileWithinTheLimitIsRefusedAtOnce(t *testing.T) {
	tc := testCircuits(t)[0]
	dir := t.TempDir()
	good := writeFile(t, "good.ccs", tc.file)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	limit := int64(len(tc.file))
	for _, c := range []struct {
		path  string
		limit int64
		want  string
		is    error
	}{
		{fifo, limit, "constraint system: open " + fifo + ": a named pipe, not a regular file", regfile.ErrNotRegular},
		{link, limit, "constraint system: open " + link + ": a symbolic link, not a regular file", regfile.ErrNotRegular},
		{dir, limit, "constraint system: open " + dir + ": a directory, not a regular file", regfile.ErrNotRegular},
		{good, limit - 1, `constraint system "` + good + `": ` + itoa(limit) + " bytes, larger than the limit of " + itoa(limit-1) + " bytes", regfile.ErrTooLarge},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Read(t.Context(), c.path, ecc.BLS12_381, tc.kind, c.limit)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != c.want || !errors.Is(err, c.is) {
				t.Errorf("%s: %v, want %q wrapping %v", c.path, err, c.want, c.is)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: still reading after a minute", c.path)
		}
	}
	if _, err := Read(t.Context(), good, ecc.BLS12_381, tc.kind, limit); err != nil {
		t.Errorf("the file itself, at its size's limit: %v", err)
	}
}

// A read whose context is done stops with its cause, naming the file,
// and does not call the file corrupt.
func TestAReadStopsWhenItsContextIsDone(t *testing.T) {
	tc := testCircuits(t)[0]
	path := writeFile(t, "c.ccs", tc.file)
	stop := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	_, err := Read(ctx, path, ecc.BLS12_381, tc.kind, 1<<30)
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want the cause, naming the file", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
