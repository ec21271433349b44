//go:build cuda

package cuda_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cuda"
)

// Options out of range are refused before any device is opened (no GPU
// needed), naming the field; a backend opened with options says their
// memory model.
func TestNewTakesTheKernelsOptions(t *testing.T) {
	if be, err := cuda.New(cuda.Options{MSMWindow: 30}); be != nil || err == nil || !strings.Contains(err.Error(), "msm window 30") {
		t.Fatalf("New with window 30: %v, %v; want an error naming the window", be, err)
	}
	opts := cuda.Options{MSMWindow: 12, AffineMax: 1 << 20}
	be, err := cuda.New(opts)
	if errors.Is(err, device.ErrNoDevice) {
		t.Skip("no CUDA device: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if m := be.Memory(); m != cuda.Model(opts) || m.MSMWindow(1<<24) != 12 {
		t.Errorf("memory model %v, want Model of the options", m)
	}
}
