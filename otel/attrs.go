// Package otel sets up prooflane's tracing and names what it records.
//
// The runtime emits one span per job, per partition, per stage instance and
// per lock wait; GPU stages add kernel spans under their stage span. Every
// prooflane attribute is under the "prooflane." prefix and every span
// carries prooflane.kind, so readers (prooflane analyze, the Jaeger test)
// never parse span names.
//
//	kind       name                 parent      run interval
//	job        "job <pipeline>"     -           whole job
//	partition  "partition <i>"      job         whole partition
//	lock_wait  "wait <resource>"    partition   queued on one resource
//	stage      "<stage name>"       partition   the stage's run, locks held
//	kernel     "<kernel>"           stage       one device operation
//
// A stage span starts when its locks are granted: the time before that is
// in its lock_wait spans and in prooflane.wait_ms.
//
// Setup sends spans to a JSON-lines file (format: package otel/tracefile)
// or over OTLP; see docs/observability.md.
package otel

import "go.opentelemetry.io/otel/attribute"

// Span kinds, the values of KeyKind.
const (
	KindJob       = "job"
	KindPartition = "partition"
	KindStage     = "stage"
	KindLockWait  = "lock_wait"
	KindKernel    = "kernel"
)

// Attribute keys.
const (
	KeyKind       = attribute.Key("prooflane.kind")
	KeyPipeline   = attribute.Key("prooflane.pipeline")    // pipeline name
	KeyJob        = attribute.Key("prooflane.job")         // job id
	KeyPartitions = attribute.Key("prooflane.partitions")  // on job spans: partition count
	KeyPartition  = attribute.Key("prooflane.partition")   // partition index
	KeyStage      = attribute.Key("prooflane.stage")       // stage name in the pipeline
	KeyStageType  = attribute.Key("prooflane.stage_type")  // registered type, e.g. groth16.prep_msm
	KeyDevice     = attribute.Key("prooflane.device")      // device index, -1 when unplaced
	KeyWorker     = attribute.Key("prooflane.worker")      // worker slot of the stage
	KeyLocks      = attribute.Key("prooflane.locks")       // concrete resources held while running, e.g. ["gpu.0.compute"]
	KeyResource   = attribute.Key("prooflane.resource")    // on lock_wait spans: the resource waited for
	KeyWeight     = attribute.Key("prooflane.weight")      // on lock_wait spans: weight requested
	KeyWaitMS     = attribute.Key("prooflane.wait_ms")     // time queued for workers and locks
	KeyHoldMS     = attribute.Key("prooflane.hold_ms")     // time the stage ran with its locks held
	KeyAttempt    = attribute.Key("prooflane.attempt")     // 1 for the first run
	KeyKernel     = attribute.Key("prooflane.kernel")      // on kernel spans: ntt_h, msm_a, ...
	KeyGPUTimeMS  = attribute.Key("prooflane.gpu_time_ms") // on kernel spans: the operation's duration
	// KeyGPUTimeSource says how gpu_time_ms was measured: "device" (CUDA
	// events on the stream) or "wall" (host clock; the CPU backend).
	KeyGPUTimeSource = attribute.Key("prooflane.gpu_time_source")
	KeyBackend       = attribute.Key("prooflane.backend") // resource attribute: cpu or cuda
)
