package groth16

import (
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// tableDevice is a device with cdev.Tables whose memory the test sets:
// withTable only asks it questions.
type tableDevice struct {
	cdev.Device
	total, free, resident uint64
	loaded                map[string]bool
}

func (d *tableDevice) Info() device.Info {
	return device.Info{Index: 0, Name: "test", MemTotal: d.total, MemFree: d.free}
}
func (d *tableDevice) Resident() uint64                    { return d.resident }
func (d *tableDevice) Loaded(key string) bool              { return d.loaded[key] }
func (d *tableDevice) TableBytes(n, pointBytes int) uint64 { return uint64(n*pointBytes) * 12 }
func (d *tableDevice) LoadG1Table(string, []curve.G1Affine) (device.G1Bases, error) {
	panic("not called")
}
func (d *tableDevice) LoadG2Table(string, []curve.G2Affine) (device.G2Bases, error) {
	panic("not called")
}

func TestWithTable(t *testing.T) {
	const gib = 1 << 30
	const n = 1 << 20 // 96 MiB of G1 points, a table of 1.1 GiB
	for _, tc := range []struct {
		name                  string
		v                     string
		total, free, resident uint64
		loaded                bool
		want                  bool
		note                  string
	}{
		{name: "auto, room", v: "auto", total: 100 * gib, free: 90 * gib, want: true},
		{name: "auto, would leave under half free", v: "auto", total: 100 * gib, free: 51 * gib, note: "less than half of the device's"},
		{name: "auto, over 40%", v: "auto", total: 100 * gib, free: 90 * gib, resident: 39 * gib, note: "over the 40.0 GiB tables allows (tables: auto"},
		{name: "auto, no memory figure", v: "auto"},
		{name: "off", v: "off", total: 100 * gib, free: 90 * gib},
		{name: "size, room", v: "2GiB", free: 2 * gib, want: true},
		{name: "size, over", v: "1GiB", free: 90 * gib, note: "over the 1.0 GiB tables allows (tables: 1GiB)"},
		{name: "already resident", v: "auto", total: 100 * gib, free: 1, loaded: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &tableDevice{total: tc.total, free: tc.free, resident: tc.resident, loaded: map[string]bool{"k": tc.loaded}}
			got, note := withTable(d, tc.v, "k", "g1.z", n, g1PointBytes)
			if (got != nil) != tc.want {
				t.Fatalf("with a table: %v, want %v (note %q)", got != nil, tc.want, note)
			}
			if tc.note == "" && note != "" || !strings.Contains(note, tc.note) {
				t.Fatalf("note %q, want one containing %q", note, tc.note)
			}
		})
	}
}

func TestTablesConfig(t *testing.T) {
	for v, ok := range map[string]bool{"auto": true, "off": true, "0": true, "48GiB": true, "512 MiB": true, "": true, "lots": false, "-1": false, "3XB": false} {
		c := VRAMConfig{OnOOM: OnOOMRetry, Bases: BasesDevice, Tables: v}
		err := c.Validate()
		if (err == nil) != ok {
			t.Errorf("tables: %q: error %v, want ok=%v", v, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "tables:") {
			t.Errorf("tables: %q: error %q does not name the field", v, err)
		}
		g := G2Config{On: "device", Bases: BasesDevice, Tables: v}
		if err := g.Validate(); (err == nil) != ok {
			t.Errorf("g2 tables: %q: error %v, want ok=%v", v, err, ok)
		}
	}
}
