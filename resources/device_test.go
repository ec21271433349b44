package resources

import "testing"

func TestDeviceOfAnExpandedResourceIsItsDevice(t *testing.T) {
	s, err := NewSet([]Decl{{Name: "cpu", Capacity: 2}, {Name: "gpu.{gpu}.mem", Capacity: 1}, {Name: "workers.x.{gpu}", Capacity: 1}, {Name: "gpu.0.extra", Capacity: 1}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		device int
		want   int
	}{
		{"cpu", 0, -1}, {"gpu.{gpu}.mem", 0, 0}, {"gpu.{gpu}.mem", 2, 2}, {"workers.x.{gpu}", 1, 1},
		// A plain resource named like a device's is still the machine's:
		// only the template decides.
		{"gpu.0.extra", 0, -1},
	} {
		id, err := s.Lookup(tc.name, tc.device)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Device(id); got != tc.want {
			t.Errorf("Device(%s on %d) = %d, want %d", tc.name, tc.device, got, tc.want)
		}
	}
}
