package groth16

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// ErrBasesDoNotFit is wrapped, together with device.ErrOutOfMemory, by the
// error of a stage whose proving-key bases do not fit in its device's
// memory. Such an error is never Retryable: bases stay resident until the
// backend is closed, so a retry cannot make room for them.
var ErrBasesDoNotFit = errors.New("proving key bases do not fit in device memory (not retryable)")

// Bytes of one point as the devices store it (gnark-crypto's affine
// layout, which the CUDA backend copies as is).
var (
	g1PointBytes = int(unsafe.Sizeof(curve.G1Affine{}))
	g2PointBytes = int(unsafe.Sizeof(curve.G2Affine{}))
)

// hostBases is dev's cdev.HostBases, for bases: host.
func hostBases(dev cdev.Device) (cdev.HostBases, error) {
	hb, ok := dev.(cdev.HostBases)
	if !ok {
		in := dev.Info()
		return nil, fmt.Errorf("bases: host: device %d (%s) cannot keep a key's bases in host memory (%T has no cdev.HostBases); use bases: device", in.Index, in.Name, dev)
	}
	return hb, nil
}

// bases makes the proving key's G1 vectors resident on dev, or with where
// BasesHost keeps them in host memory for dev to stream (a no-op after
// the first partition of a key set). tables is vram_stage's `tables:`;
// notes says which vectors were loaded without a table that tables
// allows, and why.
func (j *Job) bases(dev cdev.Device, where, tables string) (_ *Bases, notes []string, _ error) {
	var b Bases
	var err error
	pk := j.PK
	// densest first: with a limited room for tables, z (H's quotient
	// coefficients, dense whatever the witness) and k gain the most; the
	// commitments' proof of knowledge last, when the circuit has one.
	vecs := []struct {
		dst  *device.G1Bases
		name string
		pts  []curve.G1Affine
	}{
		{&b.Z, "g1.z", pk.G1.Z},
		{&b.K, "g1.k", pk.G1.K},
		{&b.A, "g1.a", pk.G1.A},
		{&b.B, "g1.b", pk.G1.B},
	}
	if pok := j.pokBases(); len(pok) > 0 {
		vecs = append(vecs, struct {
			dst  *device.G1Bases
			name string
			pts  []curve.G1Affine
		}{&b.PoK, "g1.pok", pok})
	}
	if where == BasesHost {
		hb, err := hostBases(dev)
		if err != nil {
			return nil, nil, err
		}
		for _, x := range vecs {
			if *x.dst, err = hb.HostG1(j.BasesKey+"/host/"+x.name, x.pts); err != nil {
				return nil, nil, fmt.Errorf("keep %s bases on the host: %w", x.name, err)
			}
		}
		return &b, nil, nil
	}
	total := 0
	for _, x := range vecs {
		total += len(x.pts) * g1PointBytes
	}
	for i, x := range vecs {
		key := j.BasesKey + "/" + x.name
		t, note := withTable(dev, tables, key, x.name, len(x.pts), g1PointBytes)
		if note != "" {
			notes = append(notes, note)
		}
		if t != nil {
			if *x.dst, err = t.LoadG1Table(key, x.pts); err == nil {
				continue
			}
			if !isOOM(err) {
				return nil, nil, fmt.Errorf("load %s bases with a table: %w", x.name, err)
			}
			notes = append(notes, fmt.Sprintf("%s of key %q: loaded without its table, which ran out of device memory", x.name, j.BasesKey))
		}
		if *x.dst, err = dev.LoadG1(key, x.pts); err != nil {
			if !isOOM(err) {
				return nil, nil, fmt.Errorf("load %s bases: %w", x.name, err)
			}
			var resident []string
			for _, y := range vecs[:i] {
				resident = append(resident, y.name)
			}
			return nil, nil, j.basesDoNotFit(dev, x.name, len(x.pts), g1PointBytes,
				fmt.Sprintf("the key's G1 bases need %s in all", byteSize(total)), resident, err)
		}
	}
	return &b, notes, nil
}

// withTable returns dev's cdev.Tables when the vector name of n points
// under key is to be loaded with its table under the `tables:` value v
// (tablesCap), nil otherwise; note says why not when v allows tables and
// the device has them but this one does not fit. Bases already resident
// are returned as they are by either load: no note.
func withTable(dev cdev.Device, v, key, name string, n, pointBytes int) (cdev.Tables, string) {
	t, ok := dev.(cdev.Tables)
	if !ok || n == 0 || t.Loaded(key) {
		return nil, ""
	}
	limit, auto, err := tablesCap(v)
	if err != nil || (!auto && limit == 0) {
		return nil, ""
	}
	size := t.TableBytes(n, pointBytes)
	after := dev.Resident() + size
	if auto {
		in := dev.Info()
		if in.MemTotal == 0 {
			return nil, ""
		}
		limit = in.MemTotal / 5 * 2
		if in.MemFree < size || in.MemFree-size < in.MemTotal/2 {
			return nil, fmt.Sprintf("%s: loaded without its table (tables: auto): the table (%s) would leave less than half of the device's %s free (%s free now); tables: SIZE allows more",
				name, byteSize(int(size)), byteSize(int(in.MemTotal)), byteSize(int(in.MemFree)))
		}
	}
	if after > limit {
		return nil, fmt.Sprintf("%s: loaded without its table: with it the device's resident bases would take %s, over the %s tables allows (%s)",
			name, byteSize(int(after)), byteSize(int(limit)), tablesWhat(v))
	}
	return t, ""
}

// tablesWhat names the setting v for a message.
func tablesWhat(v string) string {
	if _, auto, _ := tablesCap(v); auto {
		return "tables: auto, 40% of the device's memory; tables: SIZE sets it"
	}
	return "tables: " + v
}

// g2Bases makes the proving key's G2 vector of B resident on dev, or
// with where BasesHost keeps it in host memory for dev to stream; tables
// and notes as for bases.
func (j *Job) g2Bases(dev cdev.Device, where, tables string) (device.G2Bases, []string, error) {
	if where == BasesHost {
		hb, err := hostBases(dev)
		if err != nil {
			return nil, nil, err
		}
		b, err := hb.HostG2(j.BasesKey+"/host/g2.b", j.PK.G2.B)
		return b, nil, err
	}
	key := j.BasesKey + "/g2.b"
	var notes []string
	t, note := withTable(dev, tables, key, "g2.b", len(j.PK.G2.B), g2PointBytes)
	if note != "" {
		notes = append(notes, note)
	}
	if t != nil {
		b, err := t.LoadG2Table(key, j.PK.G2.B)
		if err == nil {
			return b, notes, nil
		}
		if !isOOM(err) {
			return nil, nil, fmt.Errorf("load g2.b bases with a table: %w", err)
		}
		notes = append(notes, fmt.Sprintf("g2.b of key %q: loaded without its table, which ran out of device memory", j.BasesKey))
	}
	b, err := dev.LoadG2(key, j.PK.G2.B)
	if err == nil {
		return b, notes, nil
	}
	if !isOOM(err) {
		return nil, nil, fmt.Errorf("load g2.b bases: %w", err)
	}
	return nil, nil, j.basesDoNotFit(dev, "g2.b", len(j.PK.G2.B), g2PointBytes,
		"loaded besides the G1 bases because b_g2_msm runs on: device", nil, err)
}

// basesDoNotFit explains an out-of-memory error loading vector name: how
// much it needed, what the device has free, and that retrying cannot help.
func (j *Job) basesDoNotFit(dev cdev.Device, name string, points, pointBytes int, context string, resident []string, err error) error {
	in := dev.Info()
	where := fmt.Sprintf("device %d", in.Index)
	if in.Name != "" {
		where += fmt.Sprintf(" (%s)", in.Name)
	}
	free := "free memory unknown"
	if in.MemTotal > 0 {
		free = fmt.Sprintf("%s free of %s", byteSize(int(in.MemFree)), byteSize(int(in.MemTotal)))
	}
	already := ""
	if len(resident) > 0 {
		already = "; already resident: " + strings.Join(resident, ", ")
	}
	return fmt.Errorf("%w: %s of key %q needs %s (%d points of %d bytes) on %s, %s; %s%s; "+
		"bases stay resident until the backend is closed, so retrying cannot help: "+
		"keep them in host memory, streamed through the MSMs (the stages' `bases: host`; --set bases=host with the shipped layouts), "+
		"free device memory (other keys' bases, other processes) or use a device with more: %w",
		ErrBasesDoNotFit, name, j.BasesKey, byteSize(points*pointBytes), points, pointBytes, where, free, context, already, err)
}

// byteSize formats n bytes with a binary unit (512 B, 96.0 KiB, 1.5 GiB).
func byteSize(n int) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := unit, 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
