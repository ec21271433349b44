package cuda

import "testing"

// The plain-Go side of the options, in a build without the kernels:
// the window they force, and which MSMs they give a batch-affine scratch
// and how much.
func TestOptionsWindowAndAffineScratch(t *testing.T) {
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("the zero options: %v", err)
	}
	if err := (Options{MSMWindow: 3}).Validate(); err == nil {
		t.Error("window 3 validated")
	}
	if got := (Options{}).Window(1 << 24); got != Window(1<<24) || got != 20 {
		t.Errorf("default window at 2^24 = %d, want Window's 20", got)
	}
	if got := (Options{MSMWindow: 16}).Window(1 << 24); got != 16 {
		t.Errorf("forced window at 2^24 = %d, want 16", got)
	}

	const n = 1 << 20 // a G2 MSM's scratch fits under 4 GiB at c = 16 or its table's
	g2 := AffineScratch(n, TableWindow(n), true, 96)
	if plain := AffineScratch(n, 16, false, 96); plain != 3763492836 {
		t.Errorf("G2 2^20 c = 16: %d bytes, want the kernels' 3763492836", plain)
	}
	for _, c := range []struct {
		o      Options
		g2     bool
		want   uint64
		reason string
	}{
		{Options{}, true, max(g2, 3763492836), "G2 takes the batch-affine scratch by default"},
		{Options{}, false, 0, "G1 sums with XYZZ additions by default"},
		{Options{Accum: AccumXYZZ}, true, 0, "XYZZ for every MSM"},
		{Options{Accum: AccumAffine}, false, max(AffineScratch(n, 16, false, 48), AffineScratch(n, TableWindow(n), true, 48)), "batch-affine for G1 too"},
		{Options{AffineMax: 1000}, true, 0, "a cap below every window's scratch"},
	} {
		if got := c.o.AffineScratch(n, c.g2); got != c.want {
			t.Errorf("%+v g2 %v: %d bytes, want %d (%s)", c.o, c.g2, got, c.want, c.reason)
		}
	}
	if got := (Options{}).AffineScratch(1<<22, true); got != 0 {
		t.Errorf("G2 2^22: %d bytes; want 0, over the 4 GiB cap", got)
	}
}
