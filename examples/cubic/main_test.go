package main

import (
	"os"
	"testing"
)

// TestMain points the key cache at a temporary directory, so that the
// example makes its keys there and not in the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prooflane-cubic")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The README's library snippet, run as a user runs it: three proofs, each
// accepted by gnark's verifier.
func Example_main() {
	main()
	// Output:
	// proof 0 verifies: true
	// proof 1 verifies: true
	// proof 2 verifies: true
}
