//go:build unix

package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/prooflane/prooflane/internal/regfile"
)

// lockOut takes the exclusive lock of an --out directory (flock on path,
// created if need be, never through a symbolic link planted there)
// without waiting, and returns its release; a lock held by another
// process is an error naming it.
func lockOut(path string) (unlock func(), err error) {
	f, err := regfile.OpenLock(path)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("another prooflane prove is writing it (it holds the lock %s); wait for it to end, or give another --out", path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
