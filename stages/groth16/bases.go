package groth16

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
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

// hostBases is dev's device.HostBases, for bases: host.
func hostBases(dev device.Device) (device.HostBases, error) {
	hb, ok := dev.(device.HostBases)
	if !ok {
		in := dev.Info()
		return nil, fmt.Errorf("bases: host: device %d (%s) cannot keep a key's bases in host memory (%T has no device.HostBases); use bases: device", in.Index, in.Name, dev)
	}
	return hb, nil
}

// bases makes the proving key's G1 vectors resident on dev, or with where
// BasesHost keeps them in host memory for dev to stream (a no-op after
// the first partition of a key set).
func (j *Job) bases(dev device.Device, where string) (*Bases, error) {
	var b Bases
	var err error
	pk := j.PK
	vecs := []struct {
		dst  *device.G1Bases
		name string
		pts  []curve.G1Affine
	}{
		{&b.A, "g1.a", pk.G1.A},
		{&b.B, "g1.b", pk.G1.B},
		{&b.K, "g1.k", pk.G1.K},
		{&b.Z, "g1.z", pk.G1.Z},
	}
	if where == BasesHost {
		hb, err := hostBases(dev)
		if err != nil {
			return nil, err
		}
		for _, x := range vecs {
			if *x.dst, err = hb.HostG1(j.BasesKey+"/host/"+x.name, x.pts); err != nil {
				return nil, fmt.Errorf("keep %s bases on the host: %w", x.name, err)
			}
		}
		return &b, nil
	}
	total := 0
	for _, x := range vecs {
		total += len(x.pts) * g1PointBytes
	}
	for i, x := range vecs {
		if *x.dst, err = dev.LoadG1(j.BasesKey+"/"+x.name, x.pts); err != nil {
			if !isOOM(err) {
				return nil, fmt.Errorf("load %s bases: %w", x.name, err)
			}
			var resident []string
			for _, y := range vecs[:i] {
				resident = append(resident, y.name)
			}
			return nil, j.basesDoNotFit(dev, x.name, len(x.pts), g1PointBytes,
				fmt.Sprintf("the key's G1 bases need %s in all", byteSize(total)), resident, err)
		}
	}
	return &b, nil
}

// g2Bases makes the proving key's G2 vector of B resident on dev, or
// with where BasesHost keeps it in host memory for dev to stream.
func (j *Job) g2Bases(dev device.Device, where string) (device.G2Bases, error) {
	if where == BasesHost {
		hb, err := hostBases(dev)
		if err != nil {
			return nil, err
		}
		return hb.HostG2(j.BasesKey+"/host/g2.b", j.PK.G2.B)
	}
	b, err := dev.LoadG2(j.BasesKey+"/g2.b", j.PK.G2.B)
	if err == nil {
		return b, nil
	}
	if !isOOM(err) {
		return nil, fmt.Errorf("load g2.b bases: %w", err)
	}
	return nil, j.basesDoNotFit(dev, "g2.b", len(j.PK.G2.B), g2PointBytes,
		"loaded besides the G1 bases because b_g2_msm runs on: device", nil, err)
}

// basesDoNotFit explains an out-of-memory error loading vector name: how
// much it needed, what the device has free, and that retrying cannot help.
func (j *Job) basesDoNotFit(dev device.Device, name string, points, pointBytes int, context string, resident []string, err error) error {
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
