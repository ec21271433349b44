//go:build !linux

package main

import "errors"

// exchange is not available here: commit falls back to two renames.
func exchange(a, b string) error { return errors.ErrUnsupported }
