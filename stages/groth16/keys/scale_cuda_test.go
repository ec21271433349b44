//go:build cuda

package keys

import (
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cuda"
)

func init() {
	scaleBases = func(t *testing.T) device.FixedBase {
		be, err := cuda.New(cuda.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		d, err := be.Device(0)
		if err != nil {
			t.Fatal(err)
		}
		st, err := d.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		fb, ok := device.As[device.FixedBase](st)
		if !ok {
			t.Fatal("the cuda stream has no FixedBase capability")
		}
		return fb
	}
}
