//go:build !unix

package keyfile

// Lock is a no-op where flock is not available.
func Lock(path string, exclusive bool, waiting func()) (release func(), err error) {
	return func() {}, nil
}
