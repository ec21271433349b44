package device_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
)

// emuOptions are a test backend's own options.
type emuOptions struct{ tag string }

// emu is the CPU backend under another name, remembering the options it
// was opened with and whether it was closed.
type emu struct {
	device.Backend
	opts   emuOptions
	closed *bool
}

func (e emu) Name() string { return "emu" }
func (e emu) Close() error { *e.closed = true; return e.Backend.Close() }

// emuFactory opens emu backends of have devices whatever a run wants,
// as a backend of real devices does.
func emuFactory(have int, opened *emu, closed *bool) device.Factory {
	return device.NewFactory("emu",
		func(_ int, o emuOptions) (device.Backend, error) {
			be, err := cpu.New(have)
			*opened = emu{be, o, closed}
			return *opened, err
		},
		func(o emuOptions) device.MemoryModel { return model{window: len(o.tag)} })
}

func TestRegistryOpensABackendByNameWithItsOwnOptions(t *testing.T) {
	var opened emu
	var closed bool
	r := device.NewRegistry().MustRegister(cpu.Factory(), emuFactory(2, &opened, &closed))
	if got := strings.Join(r.Names(), ","); got != "cpu,emu" {
		t.Errorf("names %q, want cpu,emu", got)
	}
	be, err := r.Open("emu", 2, emuOptions{tag: "x"})
	if err != nil || be.Name() != "emu" || opened.opts.tag != "x" {
		t.Fatalf("open emu: %v, %v, options %+v", be, err, opened.opts)
	}
	if _, err := r.Open("emu", 1, nil); err != nil || opened.opts != (emuOptions{}) {
		t.Errorf("nil options: %v, opened with %+v; want the zero options", err, opened.opts)
	}
	if _, err := r.Open("emu", 1, struct{ tag string }{"y"}); err == nil || !strings.Contains(err.Error(), "emu backend: options of type struct { tag string }, want device_test.emuOptions") {
		t.Errorf("options of another type: %v", err)
	}
	if m, err := r.Model("emu", emuOptions{tag: "abc"}); err != nil || m.MSMWindow(0) != 3 {
		t.Errorf("model: %v, %v; want the factory's model of the options", m, err)
	}
	cpuBe, err := r.Open("cpu", 3, nil)
	if err != nil || len(cpuBe.Devices()) != 3 {
		t.Errorf("cpu backend for 3 devices: %v", err)
	}
}

func TestRegistryRefusesWhatItCannotOpen(t *testing.T) {
	var opened emu
	var closed bool
	r := device.NewRegistry().MustRegister(emuFactory(1, &opened, &closed))
	_, err := r.Open("emu", 3, nil)
	if !errors.Is(err, device.ErrNoDevice) || !strings.Contains(err.Error(), "emu backend: 3 devices wanted, 1 present") || !closed {
		t.Errorf("3 devices of 1: %v (closed %v); want ErrNoDevice and the backend closed", err, closed)
	}
	if _, err := r.Open("tpu", 1, nil); !errors.Is(err, device.ErrUnknownBackend) || !strings.Contains(err.Error(), `backend "tpu": unknown backend (have emu)`) {
		t.Errorf("unknown: %v", err)
	}
	why := errors.New("built without it")
	r.MustRegister(device.Unavailable("gpu", why))
	if _, err := r.Open("gpu", 1, nil); !errors.Is(err, why) {
		t.Errorf("unavailable open: %v, want %v", err, why)
	}
	if _, err := r.Model("gpu", nil); !errors.Is(err, why) {
		t.Errorf("unavailable model: %v, want %v", err, why)
	}
	if got := strings.Join(r.Names(), ","); got != "emu,gpu" {
		t.Errorf("names %q: the unavailable backend's name is known", got)
	}
	if err := r.Register(cpu.Factory(), emuFactory(1, &opened, &closed)); err == nil || !strings.Contains(err.Error(), `backend "emu" registered twice`) {
		t.Errorf("emu twice: %v", err)
	}
	if strings.Join(r.Names(), ",") != "emu,gpu" {
		t.Error("a refused registration added a backend")
	}
	if err := r.Register(device.Factory{}); err == nil {
		t.Error("a zero factory registered")
	}
}

// model is a memory model whose MSM scratch is c bytes a point.
type model struct{ window int }

func (model) OwnMemory() bool                                    { return true }
func (model) Context() uint64                                    { return 0 }
func (m model) MSMWindow(int) int                                { return m.window }
func (model) TableWindow(int) int                                { return 0 }
func (model) MSMScratch(_ device.Group, n, c int, _ bool) uint64 { return uint64(n * c) }
func (model) AffineScratch(device.Group, int) uint64             { return 0 }
func (model) HostChunk() int                                     { return 0 }

func TestWiderWindowScratchIsTheExtraOverTheBaseWindow(t *testing.T) {
	for _, c := range []struct {
		window int
		want   uint64
	}{{12, 0}, {16, 0}, {20, 4 * 1000}} {
		if got := device.WiderWindowScratch(model{c.window}, device.G1, 1000, 16); got != c.want {
			t.Errorf("window %d over 16: %d, want %d", c.window, got, c.want)
		}
	}
}
