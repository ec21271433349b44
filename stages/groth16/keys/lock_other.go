//go:build !unix

package keys

// lockFile is a no-op where flock is not available.
func lockFile(path string, exclusive bool, waiting func()) func() { return func() {} }
