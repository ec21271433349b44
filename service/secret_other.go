//go:build !unix

package service

import "os"

const (
	openNoFollow = 0
	openNonBlock = 0
)

func isLinkLoop(error) bool { return false }

// checkPrivate has no owner or mode bits to check off unix; the file's
// ACLs are the operator's.
func checkPrivate(os.FileInfo) error { return nil }
