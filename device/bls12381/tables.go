package bls12381

import (
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/device"
)

// Tables is an optional capability of a Device, found by type assertion:
// bases loaded with a precomputed table of their multiples (row w the
// points times 2^(c·w), one row a window of the MSM), which every MSM
// over them then uses. The MSMs are faster (on the H200: G1 1.2-1.4x, G2
// 1.3-1.45x; docs/design/msm.md) and the bases take TableBytes
// instead of their own size. Sums (SumG1, SumG2) and results are as with
// plain bases. A key already loaded either way returns the handle it has.
type Tables interface {
	// TableBytes is the device memory n points of pointBytes bytes take
	// with their table.
	TableBytes(n, pointBytes int) uint64
	// Loaded reports whether bases (G1 or G2, with a table or not) are
	// resident under key.
	Loaded(key string) bool
	// LoadG1Table is LoadG1 with the table.
	LoadG1Table(key string, points []curve.G1Affine) (device.G1Bases, error)
	// LoadG2Table is LoadG2 with the table.
	LoadG2Table(key string, points []curve.G2Affine) (device.G2Bases, error)
}
