//go:build !unix

package main

// lockOut is a no-op where flock is not available.
func lockOut(path string) (unlock func(), err error) { return func() {}, nil }
