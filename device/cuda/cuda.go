//go:build cuda

// Package cuda is the device contract's CUDA backend: an adapter over the
// kernels of package cuda (build tag cuda; without it New says what is
// missing), opened with the kernels' Options. Each GPU serves both curves:
// its BLS12-381 device is package device/cuda/bls12381's, its BN254 one
// device/cuda/bn254's, over one device of the kernels (one memory, one
// set of resident bases). Their streams time their work with CUDA events
// (device.Timer) and compute Groth16's H step in one fused call, the
// optional capability that family declares (stages/groth16.HComputer);
// the backend's memory model is Model of the options it was opened with.
package cuda

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"

	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
	cudabls12381 "github.com/prooflane/prooflane/device/cuda/bls12381"
	cudabn254 "github.com/prooflane/prooflane/device/cuda/bn254"
)

// New returns the backend over every CUDA device of the machine, whose
// kernels run as opts says. It fails with an error wrapping
// device.ErrNoDevice when there is none, and names the field of options
// out of range.
func New(opts Options) (device.Backend, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("cuda backend: %w", err)
	}
	infos, err := cu.Devices()
	if err != nil {
		return nil, cudaErr("list devices", err)
	}
	b := &cudaBackend{opts: opts}
	for _, in := range infos {
		d, err := cu.Open(in.Index, opts)
		if err != nil {
			b.Close()
			return nil, cudaErr(fmt.Sprintf("open device %d", in.Index), err)
		}
		b.devs = append(b.devs, d)
		b.bls12381 = append(b.bls12381, cudabls12381.NewDevice(d, in.Name))
		b.bn254 = append(b.bn254, cudabn254.NewDevice(d, in.Name))
	}
	return b, nil
}

// Factory is the registry's "cuda" entry: New, over every device of the
// machine (a run that wants more than there are is refused by the
// registry), with Model as its memory model.
func Factory() device.Factory {
	return device.NewFactory("cuda", func(_ int, opts Options) (device.Backend, error) { return New(opts) }, Model)
}

// cudaErr wraps err so that errors.Is finds this package's sentinels too.
func cudaErr(what string, err error) error { return cudabls12381.Err(what, err) }

type cudaBackend struct {
	opts Options
	devs []*cu.Device
	// curves hold each curve's devices over devs.
	bls12381 []*cudabls12381.Device
	bn254    []*cudabn254.Device
}

func (b *cudaBackend) Name() string { return "cuda" }

func (b *cudaBackend) Memory() device.MemoryModel { return Model(b.opts) }

func (b *cudaBackend) Devices() []device.Info {
	out := make([]device.Info, len(b.bls12381))
	for i, d := range b.bls12381 {
		out[i] = d.Info()
	}
	return out
}

func (b *cudaBackend) Device(c ecc.ID, i int) (any, error) {
	if i < 0 || i >= len(b.devs) {
		return nil, fmt.Errorf("cuda backend: device %d: %w (have %d)", i, device.ErrNoDevice, len(b.devs))
	}
	switch c {
	case cudabls12381.Curve:
		return b.bls12381[i], nil
	case cudabn254.Curve:
		return b.bn254[i], nil
	}
	return nil, fmt.Errorf("cuda backend: %s: %w", c, device.ErrCurve)
}

func (b *cudaBackend) Close() error {
	var errs []error
	for _, d := range b.devs {
		if err := d.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
