package vcommit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/stages/family"
)

// A key file is keyMagic, the number of bases (8 bytes, big-endian), the
// bases uncompressed, and the sha256 of everything before it.
const (
	keyMagic  = "plvckey1"
	keyHeader = len(keyMagic) + 8
)

// ErrNotCached is wrapped when the cache holds no key of a size; it is
// also family.ErrNotCached.
var ErrNotCached error = notCached{}

type notCached struct{}

func (notCached) Error() string        { return "no vcommit key in the cache" }
func (notCached) Is(target error) bool { return target == family.ErrNotCached }

// Cache is a directory of keys, one a size (the Groth16 key cache's
// directory is a fine one: the file names differ).
type Cache struct{ Dir string }

// Path is where the cache keeps the key of size bases.
func (c Cache) Path(size int) string {
	return filepath.Join(c.Dir, fmt.Sprintf("vcommit-%d.key", size))
}

// Load reads the key of size bases; ErrNotCached when there is none.
func (c Cache) Load(size int) (*Key, error) {
	if err := checkSize(size); err != nil {
		return nil, err
	}
	path := c.Path(size)
	k, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotCached)
	}
	if err != nil {
		return nil, err
	}
	if len(k.Bases) != size {
		return nil, fmt.Errorf("%s: holds %d bases, want %d", path, len(k.Bases), size)
	}
	return k, nil
}

// LoadOrSetup loads the key of size bases, or makes one and saves it,
// saying so on log.
func (c Cache) LoadOrSetup(size int, log io.Writer) (*Key, error) {
	k, err := c.Load(size)
	if !errors.Is(err, ErrNotCached) {
		return k, err
	}
	fmt.Fprintf(log, "vcommit setup: %d random bases into %s\n", size, c.Path(size))
	if k, err = NewKey(size); err != nil {
		return nil, err
	}
	return k, c.Save(k)
}

// Save writes k into the cache: a temporary file, synced, renamed into
// place, the directory synced.
func (c Cache) Save(k *Key) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	path := c.Path(len(k.Bases))
	f, err := os.CreateTemp(c.Dir, ".vcommit-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = durable.Write(f, func(w io.Writer) error { return writeKey(w, k) })
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = durable.SyncDir(c.Dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save vcommit key %s: %w", path, err)
	}
	return nil
}

func writeKey(w io.Writer, k *Key) error {
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	var hdr [keyHeader]byte
	copy(hdr[:], keyMagic)
	binary.BigEndian.PutUint64(hdr[len(keyMagic):], uint64(len(k.Bases)))
	if _, err := mw.Write(hdr[:]); err != nil {
		return err
	}
	for i := range k.Bases {
		b := k.Bases[i].RawBytes()
		if _, err := mw.Write(b[:]); err != nil {
			return err
		}
	}
	_, err := w.Write(h.Sum(nil))
	return err
}

// readKey reads a key file: the header's count is bounded by MaxSize and
// must match the file's size before the file is read, the checksum must
// match, and every base must be a point of the group.
func readKey(path string) (*Key, error) {
	f, fi, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hdr [keyHeader]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("%s: corrupt: short header: %w", path, err)
	}
	if string(hdr[:len(keyMagic)]) != keyMagic {
		return nil, fmt.Errorf("%s: not a vcommit key file", path)
	}
	n := binary.BigEndian.Uint64(hdr[len(keyMagic):])
	if n < 1 || n > MaxSize {
		return nil, fmt.Errorf("%s: corrupt: declares %d bases, want 1 to %d (MaxSize)", path, n, MaxSize)
	}
	want := int64(keyHeader) + int64(n)*ProofBytes + sha256.Size
	if fi.Size() != want {
		return nil, fmt.Errorf("%s: corrupt: declares %d bases (%d bytes), has %d bytes", path, n, want, fi.Size())
	}
	data := make([]byte, want)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	body, sum := data[:want-sha256.Size], data[want-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%s: corrupt: checksum mismatch", path)
	}
	bases := make([]curve.G1Affine, n)
	for i := range bases {
		off := keyHeader + i*ProofBytes
		if _, err := bases[i].SetBytes(body[off : off+ProofBytes]); err != nil {
			return nil, fmt.Errorf("%s: base %d: %w", path, i, err)
		}
	}
	return newKey(bases), nil
}
