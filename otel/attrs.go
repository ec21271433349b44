// Package otel sets up prooflane's tracing: where spans go (a trace file in
// OTLP JSON, or OTLP over gRPC or HTTP) and the tracer provider handed to
// the runtime. What the spans carry is named in the leaf package
// otel/semconv; see docs/observability.md.
package otel

import "github.com/prooflane/prooflane/otel/semconv"

// The span kinds and attribute keys live in package otel/semconv, which
// the runtime and the stages import without linking the exporters. These
// names are kept for callers of this package.
const (
	KindJob       = semconv.KindJob
	KindPartition = semconv.KindPartition
	KindStage     = semconv.KindStage
	KindLockWait  = semconv.KindLockWait
	KindLockHold  = semconv.KindLockHold
	KindKernel    = semconv.KindKernel

	KeyKind          = semconv.KeyKind
	KeyPipeline      = semconv.KeyPipeline
	KeyJob           = semconv.KeyJob
	KeyPartitions    = semconv.KeyPartitions
	KeyPartition     = semconv.KeyPartition
	KeyStage         = semconv.KeyStage
	KeyStageType     = semconv.KeyStageType
	KeyDevice        = semconv.KeyDevice
	KeyWorker        = semconv.KeyWorker
	KeyLocks         = semconv.KeyLocks
	KeyResource      = semconv.KeyResource
	KeyWeight        = semconv.KeyWeight
	KeyWaitMS        = semconv.KeyWaitMS
	KeyHoldMS        = semconv.KeyHoldMS
	KeyAttempt       = semconv.KeyAttempt
	KeyKernel        = semconv.KeyKernel
	KeyGPUTimeMS     = semconv.KeyGPUTimeMS
	KeyGPUTimeSource = semconv.KeyGPUTimeSource
	KeyBackend       = semconv.KeyBackend
	KeyPipelineFile  = semconv.KeyPipelineFile
	KeyPipelineHash  = semconv.KeyPipelineHash
	KeyDevices       = semconv.KeyDevices
	KeyCircuit       = semconv.KeyCircuit
	KeySize          = semconv.KeySize
)
