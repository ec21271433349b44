//go:build cudahost

package hostcheck

import (
	"testing"

	"github.com/prooflane/prooflane/cuda/internal/csrchash"
)

// The package is built from the headers csrc_hash.go names (package
// csrchash says why this matters); it fails until csrc_hash.go is
// rewritten after an edit to cuda/csrc.
func TestBuiltFromCurrentHeaders(t *testing.T) {
	got, err := csrchash.Sum("../..")
	if err != nil {
		t.Fatal(err)
	}
	if got != csrcHash {
		t.Fatalf("cuda/csrc's headers changed since csrc_hash.go was written, and Go's build cache does not see them, so this build may run the old arithmetic. Run, from the repository root: go run ./cuda/internal/hostcheck/gen")
	}
}
