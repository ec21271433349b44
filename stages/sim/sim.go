// Package sim provides simulated stage types: they take a declared time
// (sleeping or spinning a CPU) and produce a token, so a lock layout can be
// explored in seconds without a GPU, and the runtime's scheduling can be
// tested without proofs.
//
//	sim.sleep   waits; holds no CPU (a stand-in for device work or I/O)
//	sim.spin    keeps one CPU busy (a stand-in for CPU work)
//	sim.device  waits, and places the partition on a device
//
// Each reads nothing and outputs Token, so any sim stage can need any other.
// A sim stage on a device that stands for kernels says `busy: true` in its
// config, so traces count its runs as device busy time (stages.BusyConfig).
package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/prooflane/prooflane/stages"
)

// Token is the data type every sim stage outputs.
const Token stages.DataType = "sim.token"

// Factories returns the sim stage types.
func Factories() []stages.Factory {
	mk := func(typ, doc string, device, spin bool) stages.Factory {
		return stages.Factory{
			Type: typ, Doc: doc, Output: Token, Device: device,
			NewConfig: func() stages.Config { return defaultConfig() },
			New: func(cfg stages.Config) (stages.Stage, error) {
				return &stage{cfg: *cfg.(*Config), spin: spin}, nil
			},
		}
	}
	return []stages.Factory{
		mk("sim.sleep", "waits for duration ± jitter; holds no CPU", false, false),
		mk("sim.spin", "keeps one CPU busy for duration ± jitter", false, true),
		mk("sim.device", "waits for duration ± jitter on the partition's device", true, false),
	}
}

type stage struct {
	cfg  Config
	spin bool
}

// ErrInjected is wrapped by the failures a `fail:` config injects.
var ErrInjected = errors.New("injected failure")

func (s *stage) Run(ctx context.Context, in *stages.Input) (any, error) {
	if f := s.cfg.Fail; f != nil && (len(f.Partitions) == 0 || slices.Contains(f.Partitions, in.Partition)) &&
		(f.Attempts == 0 || in.Attempt <= f.Attempts) {
		msg := f.Message
		if msg == "" {
			msg = "sim failure"
		}
		err := fmt.Errorf("%s (attempt %d): %w", msg, in.Attempt, ErrInjected)
		if f.Retryable {
			return nil, stages.Retryable(err)
		}
		return nil, err
	}
	d := jittered(s.cfg.Duration, s.cfg.Jitter)
	if s.spin {
		return Token, spin(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return Token, nil
	}
}

// jittered returns a duration drawn uniformly from d ± j, never below 0.
// Validate keeps d and j within a day, but a config built in code may
// skip it: no value of either panics or wraps (2j+1 overflowed int64 for
// j above 2^62 ns, and rand.Int64N panicked on the negative bound).
func jittered(d, j time.Duration) time.Duration {
	if j <= 0 {
		return d
	}
	off := rand.Uint64N(uint64(j)*2 + 1) // 0..2j: fits, as j <= MaxInt64
	if off >= uint64(j) {
		up := off - uint64(j)
		if up > uint64(math.MaxInt64-d) {
			return math.MaxInt64
		}
		return d + time.Duration(up)
	}
	down := uint64(j) - off
	if down >= uint64(d) {
		return 0
	}
	return d - time.Duration(down)
}

// spin burns one CPU until d has passed, checking ctx now and then.
func spin(ctx context.Context, d time.Duration) error {
	end := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	sink = x
	return nil
}

var sink uint64
