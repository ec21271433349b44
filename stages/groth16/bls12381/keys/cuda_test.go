//go:build cuda

package keys

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/device/cuda"
)

// TestDeviceKeysAreTheHostKeysByteForByte makes the keys from the same
// fixed secrets with the CUDA backend's fixed-base kernels and on the
// host, compares the files byte for byte and proves with the device's.
func TestDeviceKeysAreTheHostKeysByteForByte(t *testing.T) {
	be, err := cuda.New(cuda.Options{})
	if errors.Is(err, device.ErrNoDevice) {
		t.Skip("no CUDA device: ", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	d, err := cdev.Of(be, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fb, ok := cdev.As[cdev.FixedBase](st)
	if !ok {
		t.Fatal("the cuda stream has no FixedBase capability")
	}
	for _, c := range []struct {
		circuit string
		size    int
	}{{"chain", 1000}, {"mimc", 5}, {"sha256", 1}} {
		t.Run(c.circuit, func(t *testing.T) {
			sys, _, err := Compile(c.circuit, c.size)
			if err != nil {
				t.Fatal(err)
			}
			sec := fixedSecrets(t, 5)
			hpk, hvk, _, err := NewKeys(context.Background(), sys, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			dpk, dvk, ph, err := NewKeys(context.Background(), sys, sec, fb)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("device setup: %+v", ph)
			wantPK, wantVK := encoded(t, hpk, hvk)
			gotPK, gotVK := encoded(t, dpk, dvk)
			if !bytes.Equal(gotPK, wantPK) || !bytes.Equal(gotVK, wantVK) {
				t.Fatalf("device keys differ from the host's (proving key at byte %d, verifying key at %d)", firstDiff(gotPK, wantPK), firstDiff(gotVK, wantVK))
			}
			if err := proveVerify(t, c.circuit, c.size, sys, dpk, dvk); err != nil {
				t.Fatalf("proof with the device's keys: %v", err)
			}
		})
	}
}
