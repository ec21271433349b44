package runtime

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/prooflane/prooflane/internal/regfile"
)

// Limits on what a pipeline file, a job or an engine may ask for. Each is
// checked before anything of that size is allocated, and the error names
// the limit.
const (
	// MaxPartitions bounds the partitions of one job (the `partitions`
	// parameter, --partitions, Job.Partitions). A job keeps a result per
	// partition, and every partition of a Groth16 job has its witness
	// built up front.
	MaxPartitions = 10_000
	// MaxDevices bounds the devices `{gpu}` expands over (`devices:`,
	// Options.Devices): each device gets its own copy of every `{gpu}`
	// resource and device-bound worker pool.
	MaxDevices = 64
	// MaxCores bounds the host cores auto counts are sized for
	// (LoadOptions.Cores): far above any machine's, it only keeps a typo
	// from reading as a machine.
	MaxCores = 1 << 16
	// MaxPipelineBytes bounds a pipeline file read by Load (the same
	// limit as pipelines.MaxFileSize, which the commands read through).
	MaxPipelineBytes = 1 << 20
)

// readCapped reads a whole regular file of at most limit bytes, without
// reading (or allocating for) more than limit+1 bytes of one that is
// larger; a FIFO or a device (/dev/zero) is refused, not read.
func readCapped(path string, limit int64) ([]byte, error) {
	b, err := regfile.ReadFile(path, limit)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: larger than the limit of %s for a pipeline file", path, byteSize(limit))
	}
	return b, err
}

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// weightSum adds lock weights exactly: weights are int64 and two of
// MaxInt64 must not wrap round to a small (or negative) total.
type weightSum struct{ big.Int }

func (s *weightSum) add(w int64) { s.Int.Add(&s.Int, big.NewInt(w)) }

// above reports whether the sum exceeds capacity c.
func (s *weightSum) above(c int64) bool { return s.Int.Cmp(big.NewInt(c)) > 0 }

// satAdd adds two non-negative counts, stopping at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies two non-negative counts, stopping at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
