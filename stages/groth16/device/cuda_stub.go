//go:build !cuda

package device

import (
	"fmt"

	"github.com/prooflane/prooflane/cuda"
)

// NewCUDA fails in a binary built without the cuda tag: the error wraps
// cuda.ErrNotBuilt ("built without CUDA support; rebuild with -tags cuda
// after make cuda").
func NewCUDA() (Backend, error) {
	return nil, fmt.Errorf("cuda backend: %w", cuda.ErrNotBuilt)
}
