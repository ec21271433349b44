package groth16

import (
	"context"
	"errors"
	"fmt"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	"github.com/prooflane/prooflane/stages"
)

// errNoBackend is why a stage that works on devices cannot start.
var errNoBackend = errors.New("no device backend: the engine lends its stages one (runtime.Options.Backend)")

// backendRef is the part of a Groth16 stage that works on a device: the
// backend the engine lends it when it starts (stages.Starter). The engine
// owns the backend; the stage never closes it.
type backendRef struct{ be device.Backend }

// start keeps the host's backend; a stage that needs one fails without it.
func (r *backendRef) start(h stages.Host, need bool) error {
	if h == nil || h.Backend() == nil {
		if need {
			return errNoBackend
		}
		return nil
	}
	r.be = h.Backend()
	return nil
}

// device returns the device in is placed on (device 0 when unplaced).
func (r *backendRef) device(in *stages.Input) (int, cdev.Device, error) {
	i := max(in.Device, 0)
	if r.be == nil {
		return i, nil, fmt.Errorf("stage %q partition %d: not started with a device backend (run it in an engine given runtime.Options.Backend)", in.Stage, in.Partition)
	}
	d, err := cdev.Of(r.be, i)
	if err != nil {
		return i, nil, fmt.Errorf("stage %q partition %d: %w", in.Stage, in.Partition, err)
	}
	return i, d, nil
}

// Start takes the engine's backend: prep_msm asks the device how it wants
// scalars.
func (s *prepMSM) Start(_ context.Context, h stages.Host) error { return s.dev.start(h, true) }

// Start takes the engine's backend, which only on: device needs.
func (s *bG2MSM) Start(_ context.Context, h stages.Host) error {
	return s.dev.start(h, s.cfg.NeedsDevice())
}

// Start takes the engine's backend, on which vram_stage uploads.
func (s *vramStage) Start(_ context.Context, h stages.Host) error { return s.dev.start(h, true) }
