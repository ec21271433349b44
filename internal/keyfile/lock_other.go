//go:build !unix

package keyfile

import "context"

// Lock is a no-op where flock is not available.
func Lock(ctx context.Context, path string, exclusive bool, waiting func()) (release func(), err error) {
	return func() {}, nil
}
