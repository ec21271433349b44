// Package regfile opens the files prooflane reads from its users and its
// key caches (proving and verifying keys, constraint systems, SRS, proof
// directories' files, pipelines, tokens) only when they are regular
// files, and makes reading a large one honour a context.
//
// Open never blocks: the file is opened without waiting (O_NONBLOCK where
// the system has it, so a FIFO with no writer or a device opens at once)
// and then looked at (fstat) on the descriptor itself, so what is checked
// is what is read; anything but a regular file is closed and refused
// with an error naming it and wrapping ErrNotRegular. Before, a FIFO in a
// key's place blocked prove in open(2) for ever, deaf to SIGTERM and
// holding its locks. OpenNoFollow refuses a symbolic link at the path
// too (a proof directory's files). Reader cuts a large read into chunks
// and stops at the first chunk after its context is done.
package regfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (or, for OpenNoFollow, is a symbolic link).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadFile's error for a file of more than its
// limit.
var ErrTooLarge = errors.New("larger than the limit")

// Open opens path for reading when it is a regular file (following
// symbolic links), returning it with its FileInfo.
func Open(path string) (*os.File, fs.FileInfo, error) { return open(path, false) }

// OpenNoFollow is Open refusing a symbolic link at path.
func OpenNoFollow(path string) (*os.File, fs.FileInfo, error) { return open(path, true) }

// checkOpened returns f with its FileInfo when it is a regular file, and
// otherwise closes it and returns the error naming path.
func checkOpened(f *os.File, path string) (*os.File, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st.Mode())
	}
	return f, st, nil
}

// notRegular is the error for path, a file of mode.
func notRegular(path string, mode fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s, %w", kind(mode), ErrNotRegular)}
}

// kind names a file's type.
func kind(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t&fs.ModeDir != 0:
		return "a directory"
	default:
		return "a file of type " + t.String()
	}
}

// ReadFile reads the regular file at path (following symbolic links),
// which must hold at most limit bytes: a larger one (the file may grow
// after it was opened) is an error naming it and wrapping ErrTooLarge,
// found without reading more than limit+1 bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	return ReadFileContext(context.Background(), path, limit)
}

// ReadFileContext is ReadFile that stops reading when ctx is done.
func ReadFileContext(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	b, err := io.ReadAll(io.LimitReader(Reader(ctx, f), limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(path, limit)
	}
	return b, nil
}

func tooLarge(path string, limit int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)}
}

// chunk is the most one Read of Reader asks of the reader under it: a
// read of a key decoder can ask for a whole section of gigabytes at once.
const chunk = 4 << 20

// Reader returns r reading at most 4 MiB a call, and failing with ctx's
// cause once ctx is done.
func Reader(ctx context.Context, r io.Reader) io.Reader { return &ctxReader{ctx: ctx, r: r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p[:min(len(p), chunk)])
}
