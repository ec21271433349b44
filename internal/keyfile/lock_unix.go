//go:build unix

package keyfile

import (
	"os"
	"syscall"
)

// Lock takes an advisory lock on path (created if need be), shared or
// exclusive, and returns its release. When another process holds the lock
// it calls waiting (when not nil) before blocking. When the lock file
// cannot be opened (a read-only cache, a missing directory) it returns a
// no-op: the lock only orders processes that can write the cache. A
// cache's writers take it exclusive around a setup and its Write (and
// only then RemoveTemporaries), its readers shared around a read.
func Lock(path string, exclusive bool, waiting func()) (release func()) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return func() {}
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err = flock(f, how|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		if waiting != nil {
			waiting()
		}
		err = flock(f, how)
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// flock is syscall.Flock, retried when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
