package bls12381

import (
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
)

// HostBases is an optional capability of a Device, found by type
// assertion: bases that stay in host memory and go through the device a
// chunk at a time, copied again by every MSM and sum that uses them, for
// a key whose bases do not fit in device memory beside its partitions.
//
// The handles are used as resident ones are (MSMG1, SumG1 and the G2
// forms, Evict, Len), with the same results. The device memory they take
// is the chunk a stream works on, while it works on it; Resident does not
// count them. points must stay untouched until the handle is evicted or
// the backend closed. A key already loaded either way returns the handle
// it has.
type HostBases interface {
	// HostG1 keeps points on the host under key.
	HostG1(key string, points []curve.G1Affine) (device.G1Bases, error)
	// HostG2 is HostG1 for G2 points.
	HostG2(key string, points []curve.G2Affine) (device.G2Bases, error)
	// HostChunk is the number of points of one chunk: a stream holds
	// that many points (G1 or G2) and the MSM's temporaries for them on
	// the device while it runs over host bases.
	HostChunk() int
}
