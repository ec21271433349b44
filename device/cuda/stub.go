//go:build !cuda

// Package cuda is the device contract's CUDA backend. This build has no
// CUDA support: New fails with an error wrapping cuda.ErrNotBuilt ("built
// without CUDA support; rebuild with -tags cuda after make cuda"), and
// Factory is a registry entry that says so (device.Unavailable). Model
// and Options are the same in every build.
package cuda

import (
	"fmt"

	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
)

// New fails in a binary built without the cuda tag: the error wraps
// cuda.ErrNotBuilt.
func New(Options) (device.Backend, error) {
	return nil, errNotBuilt
}

var errNotBuilt = fmt.Errorf("cuda backend: %w", cu.ErrNotBuilt)

// Factory is the registry's "cuda" entry in a build without the cuda
// tag: opening it fails as New does.
func Factory() device.Factory { return device.Unavailable("cuda", errNotBuilt) }
