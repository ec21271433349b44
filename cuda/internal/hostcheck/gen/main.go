// Command gen rewrites cuda/internal/hostcheck/csrc_hash.go from the
// kernels' headers (package csrchash says why). Run from the repository
// root:
//
//	go run ./cuda/internal/hostcheck/gen
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/prooflane/prooflane/cuda/internal/csrchash"
)

func main() {
	sum, err := csrchash.Sum("cuda")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen: run from the repository root:", err)
		os.Exit(1)
	}
	out := filepath.Join("cuda", "internal", "hostcheck", "csrc_hash.go")
	if err := os.WriteFile(out, []byte(csrchash.Source(sum)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s\n", out, sum)
}
