// Package analyze answers the two questions people open a prooflane trace
// for: where did the GPU sit idle, and who waited on which lock.
// Report.WriteText, WriteJSON, WriteHTML and WritePerfetto print it.
//
// Analyze takes the spans of a trace (package tracefile reads prooflane's
// OTLP JSON lines, its older JSON lines and Jaeger's JSON) in the shape the
// runtime emits (see package otel/semconv: job → partition → lock_wait,
// lock_hold and stage spans) and computes:
//
//   - per stage: count, mean, p50, p95, max of the run time (the stage
//     span, locks held) and the mean wait before it;
//   - per resource (lock or worker pool), from its lock_hold spans through
//     package lockstats: holds (acquisitions), util, mean and max holders,
//     waits, contention and total, mean and max wait; a trace without
//     lock_hold spans is approximated from the stage spans that list each
//     lock, with a warning;
//   - per device: busy % (the union over the makespan of the stage spans
//     on it that the runtime marked prooflane.device_busy, as their stage
//     types declare; see Options.BusyStage for an override and for older
//     traces) and the idle gaps longer than Options.MinGap, with the
//     stages running meanwhile;
//   - proofs per minute, and the critical path of the slowest job;
//   - warnings, such as two resources of one device that were both
//     contended but never held at the same time: a hidden serialization.
//
// It reads attributes only: which runs keep a device busy
// (prooflane.device_busy), which device a run is on (prooflane.device) and
// which device a resource belongs to (prooflane.resource_device); it
// never infers them from stage or lock names, except for traces written
// before those attributes, with a warning.
//
// AnalyzeFile reads a trace file span by span (tracefile.Scan) and folds
// each span into the report: it keeps a record of the fields the figures
// read, about 110 bytes a span on a trace of `prooflane run` (176 for a
// stage run, 120 for a lock wait, 88 for a lock hold, 80 for a kernel, 88
// for a job; a partition span only counts), with names interned, and no
// span. The exceptions are the timeline's spans, kept whole for the
// tooltips and the Perfetto args, at most Options.TimelineSpans of them:
// past that bound WriteHTML and WritePerfetto draw the start of the trace,
// every span in it, and say so (Report.Timeline). Its report is the one
// Analyze makes of the spans tracefile.Load returns.
//
// Percentiles use the nearest-rank method: p95 of n sorted values is the
// value at rank ceil(0.95·n). The makespan runs from the first span's start
// to the last span's end.
package analyze
