//go:build !cuda

package cuda_test

import (
	"errors"
	"strings"
	"testing"

	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cuda"
)

func TestWithoutTheTagNewSaysHowToBuildIt(t *testing.T) {
	be, err := cuda.New(cuda.Options{})
	if be != nil || !errors.Is(err, cu.ErrNotBuilt) || !strings.Contains(err.Error(), "-tags cuda") {
		t.Fatalf("New() = %v, %v; want an error wrapping cuda.ErrNotBuilt that says to build with -tags cuda", be, err)
	}
	// The registry knows the name, and opening it says the same.
	r := device.NewRegistry().MustRegister(cuda.Factory())
	if be, err := r.Open("cuda", 1, cuda.Options{}); be != nil || !errors.Is(err, cu.ErrNotBuilt) || !strings.Contains(err.Error(), "-tags cuda") {
		t.Fatalf("registry Open(cuda) = %v, %v; want the same error", be, err)
	}
}
