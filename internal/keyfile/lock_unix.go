//go:build unix

package keyfile

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/prooflane/prooflane/internal/regfile"
)

// Lock takes an advisory lock on path (created if need be), shared or
// exclusive, and returns its release. When another process holds the lock
// it calls waiting (when not nil), then waits for it, looking again every
// tenth of a second, until ctx is done (an error wrapping its cause, the
// lock not taken): a setup holding it can take minutes. When the lock file
// cannot be opened (a read-only cache, a missing directory) it returns a
// no-op: the lock only orders processes that can write the cache. A
// symbolic link, or anything but a regular file, at path is an error
// naming it: the lock file is never created through a link planted
// there. A cache's writers take it exclusive around a setup and its Write
// (and only then RemoveTemporaries), its readers shared around a read.
func Lock(ctx context.Context, path string, exclusive bool, waiting func()) (release func(), err error) {
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
	if err == syscall.EWOULDBLOCK && waiting != nil {
		waiting()
	}
	for err == syscall.EWOULDBLOCK {
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the lock %s: %w", path, context.Cause(ctx))
		case <-time.After(lockPoll):
		}
		err = flock(f.Fd(), how|syscall.LOCK_NB)
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

// lockPoll is how often Lock tries a lock another process holds.
const lockPoll = 100 * time.Millisecond

// flock is syscall.Flock, retried when a signal interrupts it.
func flock(fd uintptr, how int) error {
	for {
		err := syscall.Flock(int(fd), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
