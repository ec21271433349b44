package keyfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Content returns what Write wrote before the trailer, bytes without a
// trailer as they are, and refuses a trailer the content does not match
// or that covers another length.
func TestContentChecksTheTrailerWhenThereIsOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	body := []byte("a verifying key")
	if err := Write(path, func(w io.Writer) (int64, error) { n, err := w.Write(body); return int64(n), err }); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Content(file); err != nil || !bytes.Equal(got, body) {
		t.Errorf("Content of a written file: %q, %v; want %q", got, err, body)
	}
	if got, err := Content(body); err != nil || !bytes.Equal(got, body) {
		t.Errorf("Content without a trailer: %q, %v; want it whole", got, err)
	}
	flipped := bytes.Clone(file)
	flipped[0] ^= 1
	for _, c := range []struct {
		what string
		b    []byte
		want string
	}{
		{"a flipped byte", flipped, "checksum mismatch"},
		{"a byte more", append([]byte("x"), file...), "the checksum trailer covers 15 bytes, the file has 16"},
	} {
		if _, err := Content(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
}
