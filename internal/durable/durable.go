// Package durable writes files that survive a crash whole: the bytes go
// through a buffer, are synced to the disk before the file is closed, and
// a rename into place is made durable by syncing its directory. The key
// cache and prove's output directory both write this way (STYLE 19).
package durable

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// Write writes f's contents with write through a 1 MiB buffer, flushes,
// syncs and closes f. f is closed on every path; the error says which step
// failed.
func Write(f *os.File, write func(io.Writer) error) error {
	w := bufio.NewWriterSize(f, 1<<20)
	err := write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir makes the renames and creations in dir durable. File systems
// that cannot sync a directory (os.ErrInvalid) are taken as they are.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
