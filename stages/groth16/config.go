package groth16

import "fmt"

// PrepConfig is groth16.prep_msm's options.
type PrepConfig struct {
	// SplitOnes sends scalars equal to one to batch addition instead of
	// the MSM (default true). Turning it off is for comparisons only.
	SplitOnes bool `yaml:"split_ones"`
}

// Validate accepts every value.
func (c *PrepConfig) Validate() error { return nil }

// G2Config is groth16.b_g2_msm's options.
type G2Config struct {
	// On selects where the G2 MSM runs: "cpu" (default, like the
	// production prover) or "device" (the device's MSMG2).
	On string `yaml:"on"`
}

// NeedsDevice places the partition on a device before b_g2_msm runs when
// the MSM runs there (stages.DeviceConfig).
func (c *G2Config) NeedsDevice() bool { return c.On == "device" }

// Validate checks On.
func (c *G2Config) Validate() error {
	switch c.On {
	case "cpu", "device":
		return nil
	}
	return fmt.Errorf("on: %q is not one of \"cpu\", \"device\"", c.On)
}

// EpilogueConfig is groth16.epilogue's options.
type EpilogueConfig struct {
	// Verify checks every proof against the verifying key before returning
	// it (a few pairings; default false).
	Verify bool `yaml:"verify"`
}

// Validate accepts every value.
func (c *EpilogueConfig) Validate() error { return nil }
