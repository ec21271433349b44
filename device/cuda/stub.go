//go:build !cuda

// Package cuda is the device contract's CUDA backend. This build has no
// CUDA support: New fails with an error wrapping cuda.ErrNotBuilt ("built
// without CUDA support; rebuild with -tags cuda after make cuda").
package cuda

import (
	"fmt"

	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
)

// New fails in a binary built without the cuda tag: the error wraps
// cuda.ErrNotBuilt.
func New() (device.Backend, error) {
	return nil, fmt.Errorf("cuda backend: %w", cu.ErrNotBuilt)
}
