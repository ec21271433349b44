package service

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	endian "encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nkeys"

	"github.com/prooflane/prooflane/internal/durable"
)

// Secret is the queue's shared secret: 32 random bytes that serve and
// every worker of one queue hold, and API clients never need. It is
// their NATS credential (an nkey user derived from it, proved by signing
// the server's nonce: the secret itself never crosses the network), and
// the key of the HMAC that authenticates each result a worker stores.
type Secret []byte

// SecretFile is the secret's file in serve's data directory.
const SecretFile = "nats-secret"

// secretLen is the length of a secret in bytes; its file holds twice as
// many hex digits.
const secretLen = 32

// NewSecret returns a fresh random secret.
func NewSecret() (Secret, error) {
	s := make(Secret, secretLen)
	if _, err := rand.Read(s); err != nil {
		return nil, fmt.Errorf("queue secret: %w", err)
	}
	return s, nil
}

// check says whether s can be a secret.
func (s Secret) check() error {
	if len(s) < secretLen {
		return fmt.Errorf("queue secret: %d bytes, want at least %d", len(s), secretLen)
	}
	return nil
}

// LoadOrCreateSecret reads the secret of the data directory dir
// (dir/SecretFile), making it first when there is none: 32 random bytes
// in hex, mode 0600, the name made to appear with its whole content (a
// file of its own created with O_EXCL|O_NOFOLLOW, synced, then linked to
// the name, which fails if the name exists). It returns the secret and
// its file's path.
func LoadOrCreateSecret(dir string) (Secret, string, error) {
	path := filepath.Join(dir, SecretFile)
	s, err := ReadSecret(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return s, path, err
	}
	fresh, err := NewSecret()
	if err != nil {
		return nil, path, err
	}
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%x", SecretFile, fresh[:4]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openNoFollow, 0o600)
	if err != nil {
		return nil, path, fmt.Errorf("queue secret %q: %w", path, err)
	}
	defer os.Remove(tmp)
	err = durable.Write(f, func(w io.Writer) error {
		_, err := io.WriteString(w, hex.EncodeToString(fresh)+"\n")
		return err
	})
	if err != nil {
		return nil, path, fmt.Errorf("queue secret %q: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) { // another serve made it meanwhile
			s, err := ReadSecret(path)
			return s, path, err
		}
		return nil, path, fmt.Errorf("queue secret %q: %w", path, err)
	}
	if err := durable.SyncDir(dir); err != nil {
		return nil, path, fmt.Errorf("queue secret %q: %w", path, err)
	}
	return fresh, path, nil
}

// ReadSecret reads a secret's file: a regular file (not a link) owned by
// this user, mode 0600, holding 64 hex digits (`openssl rand -hex 32`
// writes one). A file missing is an error matching os.ErrNotExist.
func ReadSecret(path string) (Secret, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow|openNonBlock, 0)
	if err != nil {
		if isLinkLoop(err) {
			return nil, fmt.Errorf("queue secret %q: a symbolic link; want the file itself", path)
		}
		return nil, fmt.Errorf("queue secret: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("queue secret %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("queue secret %q: not a regular file (%s)", path, fi.Mode().Type())
	}
	if err := checkPrivate(fi); err != nil {
		return nil, fmt.Errorf("queue secret %q: %w", path, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 2*secretLen+3))
	if err != nil {
		return nil, fmt.Errorf("queue secret %q: %w", path, err)
	}
	text := strings.TrimRight(string(b), "\r\n")
	s, err := hex.DecodeString(text)
	if err != nil || len(s) != secretLen {
		return nil, fmt.Errorf("queue secret %q: want %d hex digits and nothing else (openssl rand -hex %d writes one)", path, 2*secretLen, secretLen)
	}
	return s, nil
}

// derive returns the HMAC-SHA256 of label under s: keys for separate
// uses, none of which tells the others or s.
func (s Secret) derive(label string) []byte {
	m := hmac.New(sha256.New, s)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// natsUser is the NATS nkey user the secret stands for.
func (s Secret) natsUser() (nkeys.KeyPair, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	kp, err := nkeys.FromRawSeed(nkeys.PrefixByteUser, s.derive("prooflane nats user"))
	if err != nil {
		return nil, fmt.Errorf("queue secret: nkey: %w", err)
	}
	return kp, nil
}

// NATSUser is the public nkey (U...) of the secret's NATS user: what a
// NATS server run by the operator lists under authorization.users for
// serve and workers to connect (`{nkey: U...}`).
func (s Secret) NATSUser() (string, error) {
	kp, err := s.natsUser()
	if err != nil {
		return "", err
	}
	return kp.PublicKey()
}

// resultMAC authenticates a result: HMAC-SHA256 under the secret of the
// job id, the worker, the job's spec hash, the key facts (its name,
// constraint count and verifying key) and every partition's number, proof
// and public bytes, each field preceded by its length (8 bytes, big
// endian), so that no two results encode alike.
func (s Secret) resultMAC(id, worker, specHash string, out *Output) []byte {
	m := hmac.New(sha256.New, s)
	var n [8]byte
	field := func(b []byte) {
		endian.BigEndian.PutUint64(n[:], uint64(len(b)))
		m.Write(n[:])
		m.Write(b)
	}
	number := func(v uint64) {
		endian.BigEndian.PutUint64(n[:], v)
		m.Write(n[:])
	}
	field([]byte("prooflane result"))
	field([]byte(id))
	field([]byte(worker))
	field([]byte(specHash))
	field([]byte(out.Key))
	number(uint64(out.Constraints))
	field(out.VK)
	number(uint64(len(out.Proofs)))
	for _, p := range out.Proofs {
		number(uint64(p.Partition))
		field(p.Proof)
		field(p.Public)
	}
	return m.Sum(nil)
}
