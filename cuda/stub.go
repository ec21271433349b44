//go:build !cuda

package cuda

import "fmt"

// Device is a GPU; without the cuda build tag none can be opened.
type Device struct{}

// DeviceCount reports ErrNotBuilt.
func DeviceCount() (int, error) { return 0, fmt.Errorf("cuda: %w", ErrNotBuilt) }

// Devices reports ErrNotBuilt.
func Devices() ([]DeviceInfo, error) { return nil, fmt.Errorf("cuda: %w", ErrNotBuilt) }

// Open reports ErrNotBuilt.
func Open(index int, _ Options) (*Device, error) {
	return nil, fmt.Errorf("cuda: open device %d: %w", index, ErrNotBuilt)
}
