//go:build unix

package keys

import (
	"os"
	"syscall"
)

// lockFile takes an advisory lock on path (created if need be), shared or
// exclusive, and returns its release. When the lock file cannot be opened
// (a read-only cache, a missing directory) it returns a no-op: the lock
// only orders processes that can write the cache.
func lockFile(path string, exclusive bool) func() {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return func() {}
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
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
