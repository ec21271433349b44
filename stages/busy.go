package stages

// BusyConfig is a Config that decides whether its stage keeps its device
// busy (Factory.Busy, for types where a setting decides it: a sim.device
// stage standing for kernels says busy: true, one standing for an upload
// does not). Only a stage on a device can make it busy: the runtime
// rejects a busy stage that is not device-bound.
type BusyConfig interface {
	Config
	MakesDeviceBusy() bool
}
