package groth16

import (
	"fmt"
	"strconv"
	"strings"
)

// PrepConfig is groth16.prep_msm's options.
type PrepConfig struct {
	// SplitOnes sends scalars equal to one to batch addition instead of
	// the MSM (default true). A device whose MSMs sum their ones (and
	// minus ones) apart themselves, as cuda's do, gets the scalars as
	// they are either way. Turning it off is for comparisons only.
	SplitOnes bool `yaml:"split_ones"`
}

// Validate accepts every value.
func (c *PrepConfig) Validate() error { return nil }

// Values of VRAMConfig.Bases and G2Config.Bases: where the proving key's
// bases live while a device uses them.
const (
	// BasesDevice makes them resident on the device, loaded once per
	// key and device (the default).
	BasesDevice = "device"
	// BasesHost keeps them in host memory and copies them through the
	// device a chunk at a time in every MSM (device.HostBases): for keys
	// whose bases do not fit beside the partitions, at the cost of the
	// copies.
	BasesHost = "host"
)

// Values of VRAMConfig.Tables and G2Config.Tables besides a size.
const (
	// TablesAuto (the default) precomputes a table for a vector of bases
	// when the device's resident bases, the table included, stay within
	// 40% of its memory and at least half of its memory stays free.
	TablesAuto = "auto"
	// TablesOff loads the bases alone.
	TablesOff = "off"
)

// TablesCap reads a `tables:` value: the most bytes the device's resident
// bases may take with tables (0: off), auto when it is TablesAuto.
func TablesCap(v string) (limit uint64, auto bool, err error) {
	switch v {
	case TablesAuto, "":
		return 0, true, nil
	case TablesOff, "0":
		return 0, false, nil
	}
	num, mult := strings.TrimSpace(v), uint64(1)
	for i, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if n, ok := strings.CutSuffix(num, u); ok {
			num, mult = strings.TrimSpace(n), 1<<(10*(i+1))
			break
		}
	}
	n, perr := strconv.ParseUint(num, 10, 64)
	if perr != nil || n > (1<<50)/mult {
		return 0, false, fmt.Errorf("tables: %q is not %q, %q or a size (bytes, or with KiB, MiB, GiB or TiB: the most device memory the key's resident bases may take with their tables)", v, TablesAuto, TablesOff)
	}
	return n * mult, false, nil
}

// checkBases checks a `bases:` value.
func checkBases(v string) error {
	switch v {
	case BasesDevice, BasesHost:
		return nil
	}
	return fmt.Errorf("bases: %q is not one of %q, %q", v, BasesDevice, BasesHost)
}

// G2Config is groth16.b_g2_msm's options.
type G2Config struct {
	// On selects where the G2 MSM runs: "cpu" (default, like the
	// production prover) or "device" (the device's MSMG2).
	On string `yaml:"on"`
	// Bases is where the key's G2 bases live with on: device: "device"
	// (resident, the default) or "host" (streamed; see BasesHost).
	Bases string `yaml:"bases"`
	// Tables is whether resident G2 bases get a precomputed table (see
	// VRAMConfig.Tables).
	Tables string `yaml:"tables"`
}

// NeedsDevice places the partition on a device before b_g2_msm runs when
// the MSM runs there (stages.DeviceConfig).
func (c *G2Config) NeedsDevice() bool { return c.On == "device" }

// Validate checks On and Bases.
func (c *G2Config) Validate() error {
	switch c.On {
	case "cpu", "device":
		if _, _, err := TablesCap(c.Tables); err != nil {
			return err
		}
		return checkBases(c.Bases)
	}
	return fmt.Errorf("on: %q is not one of \"cpu\", \"device\"", c.On)
}

// EpilogueConfig is groth16.epilogue's options.
type EpilogueConfig struct {
	// Verify checks every proof with gnark's verifier against the job's
	// verifying key before returning it, and fails the partition when it
	// does not verify (default true). A proof that does not verify is
	// otherwise found only by whoever receives it: a corrupt proving key
	// in memory, a device or stage bug. The cost is one multi-pairing per
	// proof, 4.4-4.6 ms on a 2-core machine at 2^12 and 2^16 alike
	// (docs/groth16.md); `verify: false` saves it for benchmarks of the
	// prover alone.
	Verify bool `yaml:"verify"`
}

// Validate accepts every value.
func (c *EpilogueConfig) Validate() error { return nil }

// VerifiesOutput is Verify (stages.VerifyConfig).
func (c *EpilogueConfig) VerifiesOutput() bool { return c.Verify }

// Values of VRAMConfig.OnOOM.
const (
	OnOOMRetry           = "retry"
	OnOOMUploadInCompute = "upload_in_compute"
)

// VRAMConfig is groth16.vram_stage's options.
type VRAMConfig struct {
	// OnOOM is what vram_stage does when the device runs out of memory
	// while it allocates the partition's vectors (a, b, c and the MSM
	// scalars):
	//
	//   - "retry" (default): free what it allocated and fail with a
	//     retryable error; the stage's `retry:` policy backs off and runs
	//     it again. Without a `retry:` the job fails with the error.
	//   - "upload_in_compute": give up uploading and hand gpu_compute the
	//     host vectors; gpu_compute allocates and uploads them inside its
	//     own lock, then computes (the production prover's fallback). An
	//     out-of-memory error there is retryable by gpu_compute's own
	//     `retry:`, which re-uploads.
	//
	// The proving key's bases are not covered: bases that do not fit on
	// the device fail the job at once (retrying cannot free them room);
	// bases: host keeps them off the device.
	OnOOM string `yaml:"on_oom"`
	// Bases is where the key's G1 bases live: "device" (resident, the
	// default) or "host" (streamed; see BasesHost).
	Bases string `yaml:"bases"`
	// Tables is whether resident bases get a precomputed table of their
	// multiples, which makes their MSMs faster for several times their
	// memory (device.Tables; a device without the capability loads them
	// alone): "auto" (the default: see TablesAuto), "off", or a size, the
	// most device memory the resident bases may take with their tables.
	// Vectors are tried densest first (z, k, a, b, then G2's b); one
	// whose table does not fit is loaded alone, with a span event
	// saying so.
	Tables string `yaml:"tables"`
}

// Validate checks OnOOM and Bases.
func (c *VRAMConfig) Validate() error {
	switch c.OnOOM {
	case OnOOMRetry, OnOOMUploadInCompute:
		if _, _, err := TablesCap(c.Tables); err != nil {
			return err
		}
		return checkBases(c.Bases)
	}
	return fmt.Errorf("on_oom: %q is not one of %q, %q", c.OnOOM, OnOOMRetry, OnOOMUploadInCompute)
}
