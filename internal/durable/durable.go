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
	"path/filepath"
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

// WriteFile writes the file at path with write, whole or not at all: to
// a temporary name beside it (Write: synced and closed), renamed into
// place, the directory synced. A crash leaves the old file or the new one;
// a failed write leaves the old one and no temporary.
func WriteFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := Write(tmp, write); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}
