//go:build unix

package service

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

const (
	openNoFollow = syscall.O_NOFOLLOW
	openNonBlock = syscall.O_NONBLOCK
)

// isLinkLoop reports the error of opening a symbolic link with O_NOFOLLOW.
func isLinkLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// checkPrivate refuses a secret's file that another user owns or that
// anyone but its owner may read or write.
func checkPrivate(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot read its owner")
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d)", st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		return fmt.Errorf("mode %04o, want 0600 (chmod 600 it)", perm)
	}
	return nil
}
