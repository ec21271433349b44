package main

import "golang.org/x/sys/unix"

// exchange swaps the directories at a and b in one atomic step
// (renameat2 with RENAME_EXCHANGE); it fails where the file system does
// not support it.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
