package keys

import (
	"context"
	"io"

	"github.com/prooflane/prooflane/internal/keyfile"
)

// The checksum trailer, and the writing and reading of the cache's files,
// are package internal/keyfile's (shared with the PLONK key cache).
const (
	trailerLen = keyfile.TrailerLen
	setupAgain = keyfile.SetupAgain
)

var castagnoli = keyfile.Castagnoli

// decoder says how readKeyFile decodes one kind of key file
// (keyfile.Decoder).
type decoder struct {
	check     func(r io.ReaderAt, size int64) error
	read      func(io.Reader) (int64, error)
	hashFirst bool
}

// readKeyFile reads a key file with d (keyfile.Read), stopping when ctx
// is done; a missing file of the cache wraps ErrNotCached.
func readKeyFile(ctx context.Context, path string, inCache bool, d decoder) error {
	return keyfile.Read(ctx, path, inCache, ErrNotCached, keyfile.Decoder{Check: d.check, Read: d.read, HashFirst: d.hashFirst})
}

// checkKeyFile looks at a file of the cache without decoding it
// (keyfile.Check): there, and its checksum trailer whole.
func checkKeyFile(path string) error { return keyfile.Check(path, true, ErrNotCached) }

// writeFile writes a file of the key cache with its checksum trailer,
// whole or not at all (keyfile.Write).
func writeFile(path string, write func(io.Writer) (int64, error)) error {
	return keyfile.Write(path, write)
}

// removeTemporaries removes what a killed setup left beside paths
// (keyfile.RemoveTemporaries).
func removeTemporaries(paths ...string) error { return keyfile.RemoveTemporaries(paths...) }

// lockFile takes the advisory lock of a cache entry (keyfile.Lock),
// waiting for another process's until ctx is done.
func lockFile(ctx context.Context, path string, exclusive bool, waiting func()) (func(), error) {
	return keyfile.Lock(ctx, path, exclusive, waiting)
}
