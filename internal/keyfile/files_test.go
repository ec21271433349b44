//go:build unix

package keyfile

import (
	"bytes"
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

// A FIFO in a key file's place (with no writer: opening it for reading
// used to block for ever) is refused at once, naming it, by Read and by
// Check.
func TestAFIFOInAKeyFilesPlaceIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.pk")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan [2]error, 1)
	go func() {
		read := Read(context.Background(), path, true, errMissing, Decoder{Read: func(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }})
		done <- [2]error{read, Check(path, false, errMissing)}
	}()
	select {
	case errs := <-done:
		for _, err := range errs {
			if want := `key file "` + path + `": open ` + path + ": a named pipe, not a regular file"; err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
		}
	case <-time.After(time.Minute):
		t.Fatal("still blocked on the FIFO after a minute")
	}
}

// A symbolic link planted at an entry's lock file is refused, naming it,
// and its target is not created: by Lock and by LoadOrMake, which makes
// nothing.
func TestALinkPlantedAtALockFileIsRefusedAndNoTargetCreated(t *testing.T) {
	e := newEntry(t)
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, target := e.path+".lock", filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	want := "key cache lock: open " + lock + ": a symbolic link, not a regular file"
	if _, err := Lock(t.Context(), lock, true, nil); err == nil || err.Error() != want {
		t.Errorf("Lock: %v, want %q", err, want)
	}
	_, err := LoadOrMake(t.Context(), lock, nil, errMissing, func() error { return nil }, e.load, e.make)
	if err == nil || err.Error() != want || e.makes.Load() != 0 {
		t.Errorf("LoadOrMake: %v (%d makes), want %q and none", err, e.makes.Load(), want)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created (%v)", err)
	}
}

// Read stops at the first chunk after its context is done, with an error
// wrapping the cause (not a corrupt file), whether it hashes first or
// while decoding.
func TestReadStopsWhenItsContextIsDone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	content := bytes.Repeat([]byte{7}, 64<<20)
	if err := Write(path, func(w io.Writer) (int64, error) { n, err := w.Write(content); return int64(n), err }); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stopped")
	for _, hashFirst := range []bool{false, true} {
		ctx, cancel := context.WithCancelCause(context.Background())
		if hashFirst {
			cancel(stop)
		}
		err := Read(ctx, path, true, errMissing, Decoder{HashFirst: hashFirst, Read: func(r io.Reader) (int64, error) {
			var b [1]byte
			if _, err := r.Read(b[:]); err != nil {
				return 0, err
			}
			cancel(stop)
			return io.Copy(io.Discard, r)
		}})
		if !errors.Is(err, stop) || strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), path) {
			t.Errorf("hash first %v: %v, want the cause, naming the file", hashFirst, err)
		}
	}
}

// Waiting for a lock another holder has stops when the context is done,
// the lock not taken: a prove waiting on another process's setup ends
// on SIGTERM instead of blocking in flock.
func TestLockWaitStopsWhenItsContextIsDone(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "k.lock")
	release, err := Lock(t.Context(), lock, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	stop := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	waited := false
	_, err = Lock(ctx, lock, false, func() { waited = true; cancel(stop) })
	if !waited || !errors.Is(err, stop) || !strings.Contains(err.Error(), lock) {
		t.Errorf("waited %v, error %v: want the cause, naming the lock", waited, err)
	}
}

// A decoder that panics (in the caller's goroutine) makes the file
// corrupt, named, not the process dead.
func TestADecoderPanicIsACorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	if err := Write(path, func(w io.Writer) (int64, error) { n, err := w.Write([]byte("garbage")); return int64(n), err }); err != nil {
		t.Fatal(err)
	}
	err := Read(t.Context(), path, true, errMissing, Decoder{Read: func(io.Reader) (int64, error) { panic("index out of range") }})
	if want := `key file "` + path + `" is corrupt (` + SetupAgain + `): decoder panicked: index out of range`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
