// Package keyfile writes and reads the files of prooflane's key caches
// (Groth16's stages/groth16/<curve>/keys, PLONK's stages/plonk/<curve>): written whole
// or not at all (a temporary name, fsync, rename, the directory synced),
// ending with a checksum trailer that Read checks while a decoder reads
// the content.
//
// The trailer is the magic "prooflane crc32c", the length of the bytes
// before it (8 bytes, big endian) and their CRC-32C (Castagnoli, 4 bytes,
// big endian): TrailerLen bytes.
//
// Key files are opened only when they are regular files (a FIFO in a
// key's place is refused at once, not waited on: internal/regfile), and
// Read stops at the first chunk after its context is done.
//
// Lock orders a cache's processes by an advisory lock file an entry, and
// LoadOrMake is the load-or-setup both caches run under it.
package keyfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/internal/regfile"
)

// The checksum trailer every file of a key cache ends with: the magic,
// the length of the bytes before the trailer (big endian), and their
// CRC-32C (Castagnoli, big endian).
const (
	trailerMagic = "prooflane crc32c"
	// TrailerLen is the trailer's length in bytes.
	TrailerLen = len(trailerMagic) + 8 + 4
	trailerLen = TrailerLen
)

// Castagnoli is the CRC-32C table of the trailer's checksum.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

var castagnoli = Castagnoli

// SetupAgain is the advice for a corrupt file of a cache.
const SetupAgain = "run prooflane setup --force to set the keys up again"

const setupAgain = SetupAgain

// Trailer returns the checksum trailer of content.
func Trailer(content []byte) []byte {
	cw := &checksumWriter{w: io.Discard, crc: crc32.New(castagnoli)}
	cw.Write(content)
	return cw.trailer()
}

// checksumWriter counts and hashes what passes through it to w.
type checksumWriter struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
}

func (c *checksumWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// trailer returns the trailer of what c has seen.
func (c *checksumWriter) trailer() []byte {
	b := make([]byte, 0, trailerLen)
	b = append(b, trailerMagic...)
	b = binary.BigEndian.AppendUint64(b, uint64(c.n))
	return binary.BigEndian.AppendUint32(b, c.crc.Sum32())
}

// readTrailer checks the trailer of a cache file of size bytes and returns
// the length of what it covers and the checksum it records.
func readTrailer(f io.ReaderAt, size int64) (payload int64, sum uint32, err error) {
	const missing = "no checksum trailer (written by a prooflane from before key files had one, or truncated, or appended to)"
	if size < int64(trailerLen) {
		return 0, 0, fmt.Errorf("%s: %d bytes", missing, size)
	}
	var t [trailerLen]byte
	if _, err := f.ReadAt(t[:], size-int64(trailerLen)); err != nil {
		return 0, 0, err
	}
	if string(t[:len(trailerMagic)]) != trailerMagic {
		return 0, 0, errors.New(missing)
	}
	payload = size - int64(trailerLen)
	if n := binary.BigEndian.Uint64(t[len(trailerMagic):]); n != uint64(payload) {
		return 0, 0, fmt.Errorf("the checksum trailer covers %d bytes, the file has %d before it", n, payload)
	}
	return payload, binary.BigEndian.Uint32(t[len(trailerMagic)+8:]), nil
}

// hasTrailer reports whether a file of size bytes ends with the magic of
// a checksum trailer.
func hasTrailer(f io.ReaderAt, size int64) bool {
	if size < int64(trailerLen) {
		return false
	}
	var m [len(trailerMagic)]byte
	_, err := f.ReadAt(m[:], size-int64(trailerLen))
	return err == nil && string(m[:]) == trailerMagic
}

// Content returns what data, a whole key file's bytes, holds before its
// checksum trailer, checked against it; bytes that end with no trailer
// (a key written by gnark's WriteTo) are returned as they are.
func Content(data []byte) ([]byte, error) {
	r := bytes.NewReader(data)
	if !hasTrailer(r, r.Size()) {
		return data, nil
	}
	n, want, err := readTrailer(r, r.Size())
	if err != nil {
		return nil, err
	}
	if got := crc32.Checksum(data[:n], castagnoli); got != want {
		return nil, mismatch(got, want)
	}
	return data[:n], nil
}

// Decoder says how Read decodes one kind of key file.
type Decoder struct {
	// Check (when not nil) looks at the lengths the file declares, before
	// Read allocates what they say.
	Check func(r io.ReaderAt, size int64) error
	// Read decodes the content.
	Read func(io.Reader) (int64, error)
	// HashFirst checks the checksum in a pass of its own before read
	// runs, for a decoder whose trust in the bytes Check cannot bound
	// cheaply in one pass (gnark's R1CS decoder works on goroutines of
	// its own); otherwise the bytes are hashed as Read decodes them.
	HashFirst bool
}

// Read reads a key file with d.
//
// A file of the key cache (inCache) ends with a checksum trailer: the
// bytes are hashed as read decodes them (one pass, nothing held twice),
// and a mismatch is the error, ahead of whatever a decoder made of the
// corrupt bytes. A missing file of a cache wraps notCached; a corrupt one says to
// set the keys up again. Any other file (--vk: plain gnark serialization
// such as a proof directory's copy, or a file of a cache) is checked the
// same way when it ends with a trailer, and named in errors without the
// advice. Reading stops, with an error wrapping ctx's cause, at the first
// chunk read after ctx is done.
func Read(ctx context.Context, path string, inCache bool, notCached error, d Decoder) error {
	f, size, want, checked, err := open(path, inCache, notCached)
	if err != nil {
		return err
	}
	defer f.Close()
	corrupt := corruptFile(path, inCache)
	crc := crc32.New(castagnoli)
	content := func() io.Reader { return regfile.Reader(ctx, io.NewSectionReader(f, 0, size)) }
	if checked && d.HashFirst {
		if _, err := io.Copy(crc, bufio.NewReaderSize(content(), 1<<20)); err != nil {
			return fmt.Errorf("key file %q: %w", path, err)
		}
		if got := crc.Sum32(); got != want {
			return fmt.Errorf("%s: %w", corrupt, mismatch(got, want))
		}
		checked = false
	}
	body := content()
	if checked {
		body = io.TeeReader(body, crc)
	}
	r := bufio.NewReaderSize(body, 1<<20)
	if d.Check != nil {
		err = d.Check(f, size)
	}
	if err == nil {
		_, err = ReadSafely(d.Read, r)
	}
	if err == nil {
		if n, cerr := io.Copy(io.Discard, r); cerr != nil {
			err = cerr
		} else if n != 0 {
			err = fmt.Errorf("%d bytes of trailing data", n)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("key file %q: %w", path, context.Cause(ctx))
	}
	if checked {
		// Hash what the decoder left (all of it when check refused the
		// file) so a flipped byte reads as one, not as a decoder's guess.
		if _, cerr := io.Copy(io.Discard, r); cerr != nil && err == nil {
			err = cerr
		}
		if got := crc.Sum32(); got != want {
			return fmt.Errorf("%s: %w", corrupt, mismatch(got, want))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", corrupt, err)
	}
	return nil
}

// Check looks at a key file as Read does before reading its content: it
// is there, a regular file, and its checksum trailer (a cache's file, or
// any that ends with one) covers the bytes before it; the errors are
// Read's. It reads the trailer only, so a file cut short is found
// without decoding the other files of its entry. A file Check passes can
// still fail Read (a flipped byte, a decoder's error).
func Check(path string, inCache bool, notCached error) error {
	f, _, _, _, err := open(path, inCache, notCached)
	if err == nil {
		f.Close()
	}
	return err
}

// open opens a key file for Read and checks its trailer when it has one
// (or is a cache's, inCache): it returns the file, the length of its
// content, the checksum the trailer records and whether there was one
// to check.
func open(path string, inCache bool, notCached error) (f *os.File, size int64, want uint32, checked bool, err error) {
	f, st, err := regfile.Open(path)
	if inCache && errors.Is(err, os.ErrNotExist) {
		return nil, 0, 0, false, fmt.Errorf("key file %q: %w (run prooflane setup)", path, notCached)
	}
	if err != nil {
		return nil, 0, 0, false, fmt.Errorf("key file %q: %w", path, err)
	}
	fail := func(err error) (*os.File, int64, uint32, bool, error) {
		f.Close()
		return nil, 0, 0, false, err
	}
	size = st.Size()
	checked = inCache || hasTrailer(f, size)
	if checked {
		if size, want, err = readTrailer(f, size); err != nil {
			return fail(fmt.Errorf("%s: %w", corruptFile(path, inCache), err))
		}
	}
	return f, size, want, checked, nil
}

// corruptFile is the start of the error for a corrupt key file: with the
// advice to set the keys up again for a cache's.
func corruptFile(path string, inCache bool) string {
	corrupt := fmt.Sprintf("key file %q is corrupt", path)
	if inCache {
		corrupt += " (" + setupAgain + ")"
	}
	return corrupt
}

func mismatch(got, want uint32) error {
	return fmt.Errorf("checksum mismatch (crc32c of the content %08x, the trailer says %08x)", got, want)
}

// ReadSafely runs read on r, turning a panic of the decoder on garbage
// input (in this goroutine: one it starts is beyond any recover) into an
// error.
func ReadSafely(read func(io.Reader) (int64, error), r io.Reader) (n int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decoder panicked: %v", p)
		}
	}()
	return read(r)
}

// Write writes a file of a key cache with write, then the checksum
// trailer, to a temporary name beside path; it syncs the file, renames it
// into place and syncs the directory, so a crash leaves the old file or
// the new one, whole.
func Write(path string, write func(io.Writer) (int64, error)) error {
	err := durable.WriteFile(path, func(w io.Writer) error {
		cw := &checksumWriter{w: w, crc: crc32.New(castagnoli)}
		if _, err := write(cw); err != nil {
			return err
		}
		_, err := w.Write(cw.trailer())
		return err
	})
	if err != nil {
		return fmt.Errorf("write key file %q: %w", path, err)
	}
	return nil
}

// RemoveTemporaries removes the temporary files a killed setup left
// beside the files at paths (name.tmpNNN, in the same directory). The
// caller holds the exclusive lock: no other setup of them is running.
func RemoveTemporaries(paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	dir := filepath.Dir(paths[0])
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		for _, p := range paths {
			if filepath.Dir(p) != dir || !strings.HasPrefix(e.Name(), filepath.Base(p)+".tmp") {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("removing %s, left by a setup that did not finish: %w", filepath.Join(dir, e.Name()), err)
			}
		}
	}
	return nil
}
