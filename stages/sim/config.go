package sim

import (
	"errors"
	"fmt"
	"time"
)

// Config is the YAML options of every sim stage.
type Config struct {
	// Duration is how long one instance runs (sleeping or spinning).
	Duration time.Duration `yaml:"duration"`
	// Jitter spreads durations uniformly over Duration ± Jitter.
	Jitter time.Duration `yaml:"jitter"`
	// Fail injects failures, for trying error handling and retries.
	Fail *FailConfig `yaml:"fail"`
	// Busy says the stage stands for work that keeps its device busy
	// (kernels, not an upload): analysis counts the device busy while it
	// runs. Only a stage on a device (sim.device, or one holding a
	// `{gpu}` lock) may say it.
	Busy bool `yaml:"busy"`
}

// MakesDeviceBusy implements stages.BusyConfig.
func (c *Config) MakesDeviceBusy() bool { return c.Busy }

// FailConfig says which instances fail and how.
type FailConfig struct {
	// Partitions lists the partitions that fail; empty means all.
	Partitions []int `yaml:"partitions"`
	// Attempts is how many first attempts fail; 0 means every attempt.
	Attempts int `yaml:"attempts"`
	// Retryable marks the failures retryable (like a device out of memory).
	Retryable bool `yaml:"retryable"`
	// Message is the error text.
	Message string `yaml:"message"`
}

func defaultConfig() *Config { return &Config{Duration: 10 * time.Millisecond} }

// MaxDuration bounds a sim stage's duration (and so its jitter): a day is
// far beyond any stage worth simulating, and keeps duration ± jitter well
// inside time.Duration.
const MaxDuration = 24 * time.Hour

// Validate checks the durations and the failure plan.
func (c *Config) Validate() error {
	if c.Duration < 0 {
		return fmt.Errorf("duration %s is negative", c.Duration)
	}
	if c.Duration > MaxDuration {
		return fmt.Errorf("duration %s is above %s, the limit on a sim stage's duration", c.Duration, MaxDuration)
	}
	if c.Jitter < 0 || c.Jitter > c.Duration {
		return fmt.Errorf("jitter %s must be between 0 and duration %s", c.Jitter, c.Duration)
	}
	if f := c.Fail; f != nil {
		if f.Attempts < 0 {
			return errors.New("fail.attempts must be 0 (always) or more")
		}
		for _, p := range f.Partitions {
			if p < 0 {
				return fmt.Errorf("fail.partitions: %d is negative", p)
			}
		}
	}
	return nil
}
