// Package simulate predicts how a pipeline layout would perform from a
// trace recorded with another layout, without a GPU.
//
// It takes the run times of each stage from the recorded trace (stage
// spans that did not fail, by stage name, falling back to stage type),
// loads the new pipeline with its real stage types, and runs it with the
// real runtime, each stage's implementation replaced through the engine
// (runtime.Options.Replace) by a replay that sleeps for one of those
// durations. Everything else is the new layout's and its types': locks,
// workers, spans, retries, device binding (a type's or its config's, such
// as groth16.b_g2_msm with on: device) and the stage types recorded on
// the spans. It then analyses the spans it records. Time is compressed by
// Options.Speed: a recorded 80 ms stage sleeps 8 ms at speed 10, and the
// simulated trace is stretched back before analysis, so every figure is in
// real time.
//
// What it cannot know: a stage's run time is replayed as recorded, so
// effects of the new layout on the run time itself (two CPU stages now
// overlapping on too few cores, a GPU shared by more kernels) are not
// modelled; waits, device idle time and throughput are.
package simulate
