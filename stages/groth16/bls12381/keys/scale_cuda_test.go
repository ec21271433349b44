//go:build cuda

package keys

import (
	"testing"

	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cuda"
)

func init() {
	scaleBases = func(t *testing.T) cdev.FixedBase {
		be, err := cuda.New(cuda.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		d, err := cdev.Of(be, 0)
		if err != nil {
			t.Fatal(err)
		}
		st, err := d.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		fb, ok := cdev.As[cdev.FixedBase](st)
		if !ok {
			t.Fatal("the cuda stream has no FixedBase capability")
		}
		return fb
	}
}
