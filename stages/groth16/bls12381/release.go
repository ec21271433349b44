package groth16

import "github.com/prooflane/prooflane/stages"

// DeviceBuffers hold device memory: when a partition fails or is cancelled
// between vram_stage and gpu_compute, the runtime releases them at once
// (stages.Releaser) rather than waiting for a garbage collection that
// device-memory pressure does not trigger. The cleanup registered in
// newDeviceBuffers stays as a backstop for callers outside the runtime.
var _ stages.Releaser = (*DeviceBuffers)(nil)

// Release frees the vectors and closes the stream; it is idempotent.
func (d *DeviceBuffers) Release() { d.res.release() }
