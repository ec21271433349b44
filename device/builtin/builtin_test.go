package builtin_test

import (
	"errors"
	"slices"
	"testing"

	cu "github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/builtin"
	devcuda "github.com/prooflane/prooflane/device/cuda"
)

// Both shipped backends are known by name; cuda's memory model comes
// from the registry without opening it, with the options given, and
// equals the package's Model.
func TestTheShippedBackendsAreKnownByName(t *testing.T) {
	r := builtin.Registry()
	if got := r.Names(); !slices.Equal(got, []string{"cpu", "cuda"}) {
		t.Fatalf("names %v, want cpu and cuda", got)
	}
	m, err := r.Model("cuda", devcuda.Options{MSMWindow: 12})
	if err != nil && !errors.Is(err, cu.ErrNotBuilt) {
		t.Fatal(err)
	}
	if err == nil && (m.MSMWindow(1<<24) != 12 || m != devcuda.Model(devcuda.Options{MSMWindow: 12})) {
		t.Errorf("cuda model of a forced window: %v", m)
	}
	if _, err := r.Open("cuda", 1, "not options"); err == nil {
		t.Error("cuda opened with options of another type")
	}
}

// The CUDA backend's model is package cuda's figures under the options
// it was opened with, in every build.
func TestTheCUDAModelIsTheKernelsFigures(t *testing.T) {
	m := devcuda.Model(devcuda.Options{})
	if !m.OwnMemory() || m.Context() != cu.ContextBytes || m.HostChunk() != cu.HostChunk {
		t.Errorf("cuda model: own memory %v, context %d, host chunk %d", m.OwnMemory(), m.Context(), m.HostChunk())
	}
	const n = 1 << 24
	if m.MSMWindow(n) != cu.Window(n) || m.TableWindow(n) != cu.TableWindow(n) {
		t.Errorf("windows %d, %d; want cuda's %d, %d", m.MSMWindow(n), m.TableWindow(n), cu.Window(n), cu.TableWindow(n))
	}
	if m.MSMScratch(device.G1, n, 20, false) != cu.MSMScratch(n, 20, false, cu.G1XYZZBytes) ||
		m.MSMScratch(device.G2, n, 22, true) != cu.MSMScratch(n, 22, true, cu.G2XYZZBytes) {
		t.Error("MSM scratch differs from cuda.MSMScratch of the group's points")
	}
	for _, o := range []devcuda.Options{{}, {Accum: devcuda.AccumAffine}, {AffineMax: 1 << 20}} {
		mo := devcuda.Model(o)
		if mo.AffineScratch(device.G1, 1<<20) != o.AffineScratch(1<<20, false) || mo.AffineScratch(device.G2, 1<<20) != o.AffineScratch(1<<20, true) {
			t.Errorf("%+v: affine scratch differs from the options'", o)
		}
	}
}
