//go:build unix

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

func open(path string, noFollow bool) (*os.File, fs.FileInfo, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flag |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flag, 0)
	if noFollow && errors.Is(err, syscall.ELOOP) {
		return nil, nil, notRegular(path, fs.ModeSymlink)
	}
	if err != nil {
		return nil, nil, err
	}
	return checkOpened(f, path)
}

// OpenLock opens the lock file at path for flock, creating it if need
// be: never through a symbolic link planted there (whose target would be
// created, or truncated by a writer), and only a regular file; the
// errors name path.
func OpenLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, notRegular(path, fs.ModeSymlink)
	}
	if err != nil {
		return nil, err
	}
	f, _, err = checkOpened(f, path)
	return f, err
}
