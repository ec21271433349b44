// Package stages defines the Stage contract, the registry of stage types,
// and the helpers stage authors use.
//
// A stage type is described by a Factory: a lower_snake_case type name
// dotted by family ("groth16.prep_msm", "sim.sleep"), the data types it
// reads from the stages it needs and the one it produces, a default config
// that the pipeline YAML is decoded onto, and a constructor. Loading a
// pipeline only decodes and validates; each engine built on it (NewEngine)
// constructs one Stage per stage declared in the pipeline and calls Run once
// per partition, from as many goroutines as the stage has workers: Run must
// be safe for concurrent use.
//
// Run receives everything a stage instance may read in an Input: the job's
// payload, the partition and the device it is placed on, and the outputs
// of the stages it needs, by data type. A stage that wants finer tracing
// opens child spans from the span in its context:
//
//	tr := trace.SpanFromContext(ctx).TracerProvider().Tracer("my/stage")
//	ctx, span := tr.Start(ctx, "msm_a")
//	defer span.End()
package stages

import (
	"context"
	"errors"
	"fmt"

	"github.com/prooflane/prooflane/device"
)

// DataType names the kind of value that flows between stages, for example
// "groth16.solution". The runtime checks at load time that every input a
// stage declares is produced by one of the stages it needs.
type DataType string

// Config is a stage's YAML options. NewConfig returns a pointer to a struct
// filled with defaults; the pipeline's `config:` mapping is decoded onto it
// (unknown keys rejected) and then Validate is called.
type Config interface {
	Validate() error
}

// DeviceConfig is a Config that decides whether its stage works on the
// partition's device (for example a G2 MSM on the CPU or on the GPU).
type DeviceConfig interface {
	Config
	NeedsDevice() bool
}

// VerifyConfig is a Config of a stage that outputs a proof and can check
// it with its family's verifier before returning it (a proof that does not
// verify fails the partition then). Commands and the service check the
// proofs themselves only when the final proof stage's config says it did
// not (family.StagesVerify), so that every proof is checked once.
type VerifyConfig interface {
	Config
	VerifiesOutput() bool
}

// Stage is one step of a pipeline. Run returns the stage's output (of the
// factory's Output type, or nil when it declares none) or an error. Errors
// wrapped with Retryable are retried as the pipeline's retry policy says.
type Stage interface {
	Run(ctx context.Context, in *Input) (any, error)
}

// Host is what an engine lends its stages for the engine's lifetime: the
// things the engine owns and a stage must not open or close itself.
type Host interface {
	// Backend is the device backend the engine runs on (runtime's
	// Options.Backend), or nil when it was given none. A stage gets the
	// device of a partition from it with Backend().Device(in.Device). The
	// stage must not close it.
	Backend() device.Backend
	// Devices is the number of devices partitions are placed on: every
	// Input.Device is below it. A backend, when there is one, has at least
	// this many.
	Devices() int
}

// Starter is a Stage that prepares before it runs: the engine calls Start
// once, before the stage's first Run, with the engine's Host. An error
// fails the engine's start, naming the stage, and no job runs.
type Starter interface {
	Start(ctx context.Context, host Host) error
}

// Stopper is a Stage that frees what it holds when its engine closes: the
// engine calls Shutdown once, after the last Run has returned, on each
// stage it started.
type Stopper interface {
	Shutdown(ctx context.Context) error
}

// Factory describes a stage type.
type Factory struct {
	// Type is the name used in YAML `type:` fields.
	Type string
	// Doc is one sentence shown by `prooflane stages`.
	Doc string
	// Inputs are the data types Run reads with Get.
	Inputs []DataType
	// Output is the data type Run returns; empty when it returns nothing.
	Output DataType
	// Device says the stage works on the partition's device even when it
	// holds no `{gpu}` lock: the runtime places the partition on a device
	// before the first such stage runs. A type that uses the device only
	// for some settings leaves this false and gives its config a
	// NeedsDevice method (DeviceConfig).
	Device bool
	// Busy says the stage keeps its device busy while it runs (the
	// device's compute, as groth16.gpu_compute does; an upload does not):
	// the runtime records it on every stage span as
	// prooflane.device_busy, and analysis counts a device busy by those
	// spans alone. A type whose settings decide it leaves this false and
	// gives its config a MakesDeviceBusy method (BusyConfig).
	Busy bool
	// Payload describes the job payload Run reads from Input.Job, for
	// people: what it is and which command builds it. Empty when the stage
	// reads none. `prooflane run`, which gives jobs no payload, refuses
	// pipelines with such stages before starting.
	Payload string
	// NewConfig returns the default config. Nil means the stage takes no
	// options.
	NewConfig func() Config
	// New builds a stage from a validated config (nil when NewConfig is nil).
	New func(cfg Config) (Stage, error)
}

// Input is what one stage instance sees.
type Input struct {
	// Job is the payload the caller handed to the runtime for this job.
	Job any
	// JobID identifies the job in errors and traces.
	JobID string
	// Stage is the stage's name in the pipeline.
	Stage string
	// Partition is the partition index, 0-based.
	Partition int
	// Device is the device the partition is placed on, or -1.
	Device int
	// Worker is the worker slot running this instance, 0-based.
	Worker int
	// Attempt counts runs of this instance, 1 for the first.
	Attempt int

	values map[DataType]any
}

// NewInput returns an Input carrying the given upstream values. It is used
// by the runtime and by tests that call a stage directly.
func NewInput(values map[DataType]any) *Input {
	return &Input{Device: -1, Attempt: 1, values: values}
}

// Value returns the upstream value of type t.
func (in *Input) Value(t DataType) (any, bool) {
	v, ok := in.values[t]
	return v, ok
}

// Get returns the upstream value of type t as a T.
func Get[T any](in *Input, t DataType) (T, error) {
	var zero T
	v, ok := in.values[t]
	if !ok {
		return zero, fmt.Errorf("stage %q: no input of type %q", in.Stage, t)
	}
	x, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("stage %q: input %q is %T, want %T", in.Stage, t, v, zero)
	}
	return x, nil
}

// JobAs returns the job payload as a T, or an error naming the stage.
func JobAs[T any](in *Input) (T, error) {
	x, ok := in.Job.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("stage %q: job payload is %T, want %T", in.Stage, in.Job, zero)
	}
	return x, nil
}

type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

// Retryable marks err as worth retrying (for example a device out of
// memory). A nil err stays nil.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	return retryable{err}
}

// IsRetryable reports whether err, or an error it wraps, was marked with
// Retryable.
func IsRetryable(err error) bool {
	var r retryable
	return errors.As(err, &r)
}

// Releaser is implemented by outputs that hold resources outside Go's heap
// (device memory, streams). When a partition fails or is cancelled, the
// runtime calls Release on every output that no stage will now read, so a
// failed job leaks nothing. Release must be idempotent: the stage that
// consumes the value normally frees it itself.
type Releaser interface {
	Release()
}
