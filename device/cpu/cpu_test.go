package cpu_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/device"
	cdevbls12381 "github.com/prooflane/prooflane/device/bls12381"
	cdevbn254 "github.com/prooflane/prooflane/device/bn254"
	"github.com/prooflane/prooflane/device/cpu"
)

// One backend serves both curves: each emulated device hands out a
// BLS12-381 and a BN254 device of the same index; an index out of range
// and a curve it does not serve are errors naming them.
func TestTheBackendServesBothCurvesAndRefusesOthers(t *testing.T) {
	b, err := cpu.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.Devices()) != 2 {
		t.Fatalf("%d devices, want 2", len(b.Devices()))
	}
	for i := 0; i < 2; i++ {
		d1, err := cdevbls12381.Of(b, i)
		if err != nil || d1.Info().Index != i {
			t.Fatalf("bls12-381 device %d: %v", i, err)
		}
		d2, err := cdevbn254.Of(b, i)
		if err != nil || d2.Info().Index != i {
			t.Fatalf("bn254 device %d: %v", i, err)
		}
	}
	if _, err := cdevbn254.Of(b, 2); !errors.Is(err, device.ErrNoDevice) {
		t.Errorf("bn254 device 2 of 2: %v, want ErrNoDevice", err)
	}
	if _, err := b.Device(ecc.BW6_761, 0); !errors.Is(err, device.ErrCurve) {
		t.Errorf("a bw6-761 device: %v, want ErrCurve", err)
	}
}
