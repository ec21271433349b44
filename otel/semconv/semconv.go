// Package semconv names what prooflane records in a trace: the span kinds
// and every attribute key. It is a leaf: it imports only the OpenTelemetry
// attribute package, so the runtime and the stages can name attributes
// without linking an exporter (gRPC, OTLP) into every binary that uses them.
//
// The runtime emits one span per job, per partition, per stage instance,
// per lock wait and per lock hold; GPU stages add kernel spans under their
// stage span. Every prooflane attribute is under the "prooflane." prefix and
// every span carries prooflane.kind, so readers (prooflane analyze, the
// Jaeger test) never parse span names.
//
//	kind       name                 parent      interval
//	job        "job <pipeline>"     -           whole job
//	partition  "partition <i>"      job         whole partition
//	lock_wait  "wait <resource>"    partition   queued on one resource
//	lock_hold  "hold <resource>"    partition   one grant of a resource, to its release
//	stage      "<stage name>"       partition   the stage's run, locks held
//	kernel     "<kernel>"           stage       one device operation
//
// A stage span starts when its locks are granted: the time before that is
// in its lock_wait spans and in prooflane.wait_ms. A lock_hold span covers
// one acquisition of one resource (a lock or a stage's worker pool), from
// the moment it was granted to the moment it was released; for a lock held
// through a span of stages that is from before the first stage of the span
// to after the last. docs/observability.md defines the statistics computed
// from them.
package semconv

import "go.opentelemetry.io/otel/attribute"

// Span kinds, the values of KeyKind.
const (
	KindJob       = "job"
	KindPartition = "partition"
	KindStage     = "stage"
	KindLockWait  = "lock_wait"
	KindLockHold  = "lock_hold"
	KindKernel    = "kernel"
)

// Attribute keys of spans.
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
	KeyResource   = attribute.Key("prooflane.resource")    // on lock_wait and lock_hold spans: the resource
	KeyWeight     = attribute.Key("prooflane.weight")      // on lock_wait and lock_hold spans: units requested
	KeyCapacity   = attribute.Key("prooflane.capacity")    // on lock_hold spans: the resource's capacity
	KeyWaitMS     = attribute.Key("prooflane.wait_ms")     // time queued (stage: for workers and locks; lock_hold: for this resource)
	KeyHoldMS     = attribute.Key("prooflane.hold_ms")     // time the stage ran with its locks held
	KeyAttempt    = attribute.Key("prooflane.attempt")     // 1 for the first run
	KeyKernel     = attribute.Key("prooflane.kernel")      // on kernel spans: ntt_h, msm_a, ...
	KeyGPUTimeMS  = attribute.Key("prooflane.gpu_time_ms") // on kernel spans: the operation's duration
	// KeyGPUTimeSource says how gpu_time_ms was measured: "device" (CUDA
	// events on the stream) or "wall" (host clock; the CPU backend).
	KeyGPUTimeSource = attribute.Key("prooflane.gpu_time_source")
	// KeyReleasedBy is, on lock_hold spans, the stage whose end released
	// the hold: the stage itself for its own locks, the span's last stage
	// for a span lock. Empty when the hold ended otherwise (a failure).
	KeyReleasedBy = attribute.Key("prooflane.released_by")
	// KeyDeviceBusy is, on stage spans, whether the stage keeps its
	// device (prooflane.device) busy while it runs, as its stage type or
	// config declares (stages.Factory.Busy). Device busy time is the union
	// of these spans; a trace without the key predates it.
	KeyDeviceBusy = attribute.Key("prooflane.device_busy")
	// KeyResourceDevice is, on lock_hold spans, the device a
	// per-device resource (one expanded from a `{gpu}` name) belongs to,
	// or -1 for a resource of the whole machine. It is not the partition's
	// device (prooflane.device): a partition on device 0 holds
	// cpu_bandwidth, which belongs to no device.
	KeyResourceDevice = attribute.Key("prooflane.resource_device")
	// KeySolver is, on a Groth16 synthesize span, the solver that found
	// the wires: "small" (int64 arithmetic, for wires of small integers),
	// "field" (field arithmetic in the builder's order, for circuits of
	// narrow levels) or "gnark" (gnark's R1CS solver).
	KeySolver = attribute.Key("prooflane.solver")
)

// Resource attribute keys (on every span of a run, set by the command).
const (
	KeyBackend      = attribute.Key("prooflane.backend")         // cpu, cuda, sim, or replay (simulate)
	KeyPipelineFile = attribute.Key("prooflane.pipeline_file")   // the pipeline file as given
	KeyPipelineHash = attribute.Key("prooflane.pipeline_sha256") // sha256 of the pipeline file, hex
	KeyDevices      = attribute.Key("prooflane.devices")         // devices {gpu} expands over
	KeyCircuit      = attribute.Key("prooflane.circuit")         // circuit name (prove, bench)
	KeySize         = attribute.Key("prooflane.size")            // constraints per partition (prove, bench)
)
