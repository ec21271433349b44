package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// extremePipeline is a pipeline of sim stages whose every count, capacity,
// weight and duration comes from the fuzzer, none capped.
const extremePipeline = `pipeline: extreme
params:
  partitions: %d
devices: %d
max_in_flight: %d
resources:
  cpu: {capacity: %d}
  gpu.{gpu}.mem: {capacity: %d}
stages:
  a:
    type: sim.sleep
    workers: %d
    locks: [{cpu: %d}, {cpu: %d}]
    config: {duration: %dns, jitter: %dns}
  b:
    type: sim.device
    needs: [a]
    workers: %d
    retry: {attempts: %d, initial: %dns, max: %dns}
    config: {duration: %dns, fail: {attempts: %d, retryable: true}}
  c:
    type: sim.sleep
    needs: [b]
spans:
  - {lock: "gpu.{gpu}.mem", weight: %d, from: b, to: c}
`

// Extreme counts are rejected cleanly or run: whatever integers end up in
// a pipeline (partitions, devices, max_in_flight, capacities, weights,
// workers, retries, durations), in a --set override, in Job.Partitions or
// in Options.Devices, loading returns a pipeline or problems, building the
// engine returns one or an error, and a run ends soon after its short
// context does: no panic (in the loader, the engine or a stage), no hang,
// no allocation sized by a count above the limits.
func FuzzRunExtremeCounts(f *testing.F) {
	const big = math.MaxInt64
	// partitions, devices, inflight, cpuCap, memCap, workersA, w1, w2, dur, jitter,
	// workersB, attempts, initial, maxBackoff, durB, failAttempts, spanWeight,
	// setPartitions, jobPartitions, optDevices
	f.Add(int64(4), int64(2), int64(2), int64(4), int64(2), int64(2), int64(1), int64(1), int64(1000), int64(500),
		int64(2), int64(3), int64(1000), int64(2000), int64(1000), int64(1), int64(1), int64(0), int64(0), int64(0))
	f.Add(int64(big), int64(100_000_000), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big),
		int64(big), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big), int64(big))
	f.Add(int64(4294967296), int64(64), int64(10_000), int64(big), int64(1), int64(1), int64(big), int64(big), int64(0), int64(0),
		int64(1), int64(1), int64(0), int64(0), int64(0), int64(0), int64(1), int64(9223372036854775807), int64(-1), int64(65))
	f.Add(int64(10_000), int64(1), int64(10_000), int64(1), int64(1), int64(big), int64(1), int64(0), int64(int64(24*time.Hour)), int64(int64(24*time.Hour)),
		int64(big), int64(big), int64(1), int64(1), int64(0), int64(0), int64(1), int64(0), int64(10_001), int64(-5))
	f.Add(int64(-1), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(-1), int64(big),
		int64(-1), int64(0), int64(-1), int64(-2), int64(-1), int64(-1), int64(0), int64(-1), int64(math.MinInt64), int64(math.MinInt64))
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, partitions, devices, inflight, cpuCap, memCap, workersA, w1, w2, dur, jitter,
		workersB, attempts, initial, maxBackoff, durB, failAttempts, spanWeight, setPartitions, jobPartitions, optDevices int64) {
		src := fmt.Sprintf(extremePipeline, partitions, devices, inflight, cpuCap, memCap, workersA, w1, w2, dur, jitter,
			workersB, attempts, initial, maxBackoff, durB, failAttempts, spanWeight)
		var overrides map[string]string
		if setPartitions != 0 {
			overrides = map[string]string{"partitions": strconv.FormatInt(setPartitions, 10)}
		}
		p, err := Parse("extreme.yaml", []byte(src), reg, overrides)
		var ve *ValidationError
		if err != nil {
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("Parse: %v (%T), want problems", err, err)
			}
			return
		}
		if p.Partitions < 1 || p.Partitions > MaxPartitions || p.Devices < 1 || p.Devices > MaxDevices || p.MaxInFlight > MaxPartitions {
			t.Fatalf("validated counts beyond the limits: partitions %d, devices %d, max_in_flight %d", p.Partitions, p.Devices, p.MaxInFlight)
		}
		e, err := NewEngine(p, Options{Devices: int(optDevices)})
		if err != nil {
			if optDevices <= MaxDevices {
				t.Fatalf("NewEngine with %d devices: %v", optDevices, err)
			}
			return
		}
		if e.MaxInFlight() < 1 || e.MaxInFlight() > MaxPartitions {
			t.Fatalf("MaxInFlight %d outside 1..%d", e.MaxInFlight(), MaxPartitions)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := e.Run(ctx, Job{Partitions: int(jobPartitions)})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil && strings.Contains(err.Error(), "panicked") {
				t.Fatalf("a stage panicked: %v\n%s", err, src)
			}
			if jobPartitions > MaxPartitions && (err == nil || !strings.Contains(err.Error(), "the limit on partitions per job")) {
				t.Fatalf("a job of %d partitions: err %v, want the limit named", jobPartitions, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("a run with a 20 ms context did not end in 20 s:\n%s", src)
		}
		assertNothingHeld(t, e)
	})
}
