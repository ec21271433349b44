package service

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// serve's secret is made once per data directory, private, and read back
// the same; a file anyone else could have written or read is refused.
func TestTheQueueSecretIsMadeOncePrivateAndRefusedWhenNot(t *testing.T) {
	dir := t.TempDir()
	s1, path, err := LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("%s: mode %v, want -rw-------", path, fi.Mode())
	}
	b, _ := os.ReadFile(path)
	if !regexp.MustCompile(`^[0-9a-f]{64}\n$`).Match(b) {
		t.Errorf("%s holds %q, want 64 hex digits", path, b)
	}
	s2, _, err := LoadOrCreateSecret(dir)
	if err != nil || !bytes.Equal(s1, s2) {
		t.Fatalf("second start: %x, %v; want the first's %x", s2, err, s1)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	bad := func(name string, make func(path string), want string) {
		t.Helper()
		d := t.TempDir()
		p := filepath.Join(d, SecretFile)
		make(p)
		if _, _, err := LoadOrCreateSecret(d); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming %s and %q", name, err, p, want)
		}
	}
	write := func(mode os.FileMode, content string) func(string) {
		return func(p string) {
			if err := os.WriteFile(p, []byte(content), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	good := strings.Repeat("ab", 32) + "\n"
	bad("readable by others", write(0o644, good), "mode 0644, want 0600")
	bad("writable by the group", write(0o620, good), "mode 0620, want 0600")
	bad("not hex", write(0o600, strings.Repeat("zz", 32)), "want 64 hex digits")
	bad("short", write(0o600, "abcd\n"), "want 64 hex digits")
	bad("a symbolic link", func(p string) {
		if err := os.Symlink(path, p); err != nil {
			t.Fatal(err)
		}
	}, "a symbolic link")
	bad("a dangling symbolic link", func(p string) {
		if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), p); err != nil {
			t.Fatal(err)
		}
	}, "a symbolic link")
	bad("a directory", func(p string) {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}, "not a regular file")
	if os.Geteuid() == 0 {
		bad("another user's", func(p string) {
			write(0o600, good)(p)
			if err := os.Chown(p, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 4242, not by this user")
	}
}

// The embedded NATS takes no client without the queue's secret, on
// loopback too.
func TestTheEmbeddedNATSRefusesClientsWithoutTheQueueSecret(t *testing.T) {
	secret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := StartNATS(NATSConfig{DataDir: t.TempDir(), Host: "127.0.0.1", Port: 0, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	other, _ := NewSecret()
	refused := func(what string, nc *nats.Conn, err error) {
		t.Helper()
		if err == nil {
			nc.Close()
			t.Errorf("%s: connected", what)
		} else if !strings.Contains(strings.ToLower(err.Error()), "authorization violation") {
			t.Errorf("%s: %v, want an authorization violation", what, err)
		}
	}
	nc, err := nats.Connect(ns.ClientURL())
	refused("no credentials", nc, err)
	nc, err = nats.Connect(ns.ClientURL(), nats.Token(hex.EncodeToString(secret)))
	refused("the secret sent as a token", nc, err)
	nc, err = Connect(ns.ClientURL(), nil, other, "test")
	refused("another secret", nc, err)
	nc, err = Connect(ns.ClientURL(), nil, secret, "test")
	if err != nil {
		t.Fatalf("the queue's secret: %v", err)
	}
	nc.Close()
	if _, err := StartNATS(NATSConfig{DataDir: t.TempDir(), Port: -1}); err == nil || !strings.Contains(err.Error(), "queue secret: 0 bytes") {
		t.Errorf("embedded NATS without a secret: %v", err)
	}
}
