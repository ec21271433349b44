// Package builtin lists the device backends prooflane ships, for a program
// that opens them by name (the prooflane CLI's --backend): "cpu" always,
// "cuda" in a binary built with the cuda tag; without the tag "cuda" is
// known, and opening it fails saying how to build it. Adding a backend
// means adding its Factory here (ARCHITECTURE.md, "Adding a backend").
package builtin

import (
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/device/cuda"
)

// Registry returns a registry holding every shipped backend. Their
// options: cpu takes none, cuda takes cuda.Options.
func Registry() *device.Registry {
	return device.NewRegistry().MustRegister(cpu.Factory(), cuda.Factory())
}
