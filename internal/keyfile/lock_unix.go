//go:build unix

package keyfile

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/prooflane/prooflane/internal/regfile"
)

// Lock takes an advisory lock on path (created if need be), shared or
// exclusive, and returns its release. When another process holds the lock
// it calls waiting (when not nil) before blocking. When the lock file
// cannot be opened (a read-only cache, a missing directory) it returns a
// no-op: the lock only orders processes that can write the cache. A
// symbolic link, or anything but a regular file, at path is an error
// naming it: the lock file is never created through a link planted
// there. A cache's writers take it exclusive around a setup and its Write
// (and only then RemoveTemporaries), its readers shared around a read.
func Lock(path string, exclusive bool, waiting func()) (release func(), err error) {
	f, err := regfile.OpenLock(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("key cache lock: %w", err)
	}
	if err != nil {
		return func() {}, nil
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err = flock(f.Fd(), how|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		if waiting != nil {
			waiting()
		}
		err = flock(f.Fd(), how)
	}
	if err != nil {
		f.Close()
		return func() {}, nil
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// flock is syscall.Flock, retried when a signal interrupts it.
func flock(fd uintptr, how int) error {
	for {
		err := syscall.Flock(int(fd), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
