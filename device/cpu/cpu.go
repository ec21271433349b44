// Package cpu is the reference backend of the device contract: gnark-crypto
// on host memory, always available, presenting one or more emulated
// devices, each serving every curve of the contract (BLS12-381 through
// package device/cpu/bls12381, BN254 through device/cpu/bn254). Every
// operation is the gnark-crypto call gnark's own provers make, so a proof
// built on it is bit-for-bit what gnark computes for the same randomness,
// and every other backend is tested against it.
package cpu

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/device"
	cpubls12381 "github.com/prooflane/prooflane/device/cpu/bls12381"
	cpubn254 "github.com/prooflane/prooflane/device/cpu/bn254"
)

// curveDevice is one curve's side of an emulated device.
type curveDevice interface {
	Close()
}

// curves are the curves an emulated device serves, each with its
// device's constructor.
var curves = []struct {
	id  ecc.ID
	new func(index int) curveDevice
}{
	{cpubls12381.Curve, func(i int) curveDevice { return cpubls12381.NewDevice(i) }},
	{cpubn254.Curve, func(i int) curveDevice { return cpubn254.NewDevice(i) }},
}

// New returns the CPU backend presenting devices emulated devices (1
// when devices <= 0). Device memory is host memory owned by the backend.
func New(devices int) (device.Backend, error) {
	if devices <= 0 {
		devices = 1
	}
	b := &cpuBackend{n: devices, devs: map[ecc.ID][]curveDevice{}}
	for _, c := range curves {
		for i := 0; i < devices; i++ {
			b.devs[c.id] = append(b.devs[c.id], c.new(i))
		}
	}
	return b, nil
}

type cpuBackend struct {
	n    int
	devs map[ecc.ID][]curveDevice
}

func (b *cpuBackend) Name() string { return "cpu" }

func (b *cpuBackend) Devices() []device.Info {
	out := make([]device.Info, b.n)
	for i := range out {
		out[i] = device.Info{Index: i, Name: fmt.Sprintf("cpu (emulated device %d)", i)}
	}
	return out
}

func (b *cpuBackend) Device(c ecc.ID, i int) (any, error) {
	devs, ok := b.devs[c]
	if !ok {
		return nil, fmt.Errorf("cpu backend: %s: %w", c, device.ErrCurve)
	}
	if i < 0 || i >= len(devs) {
		return nil, fmt.Errorf("cpu backend: device %d: %w (have %d)", i, device.ErrNoDevice, len(devs))
	}
	return devs[i], nil
}

func (b *cpuBackend) Close() error {
	for _, devs := range b.devs {
		for _, d := range devs {
			d.Close()
		}
	}
	return nil
}
