// Package groth16 is the Groth16 prover on BLS12-381 as six prooflane
// stages. A job (Job) proves P partitions of one circuit, each with its own
// witness; every partition runs the DAG
//
//	synthesize -> prep_msm -> b_g2_msm ----------------------------> epilogue
//	                       \-> vram_stage -> gpu_compute ----------/
//
//	groth16.synthesize   solve the R1CS: wire values and the a, b, c vectors
//	groth16.prep_msm     filter wires whose A / B bases are infinity, split
//	                     scalars equal to one off for batch addition (zeros
//	                     are free in an MSM), convert to canonical form once
//	                     when the device wants it
//	groth16.b_g2_msm     the G2 MSM for B (on the CPU by default)
//	groth16.vram_stage   allocate and upload the partition's vectors
//	groth16.gpu_compute  H by NTTs, the G1 MSMs (A, B1, K, Z/H) and the batch
//	                     additions of the ones, with one kernel span each
//	groth16.epilogue     sample r and s, assemble Ar, Bs, Krs
//
// The math and conventions are gnark v0.14's (backend/groth16/bls12-381
// prove.go): a proof verifies with gnark's groth16.Verify against the
// verifying key the proving key came with. The stages run on a
// device.Backend and never know which one; on the CPU backend "device
// memory" is host memory owned by the backend. The backend is the
// engine's, not the job's: prep_msm, vram_stage and b_g2_msm (on: device)
// take it from the host when the engine starts them (stages.Starter) and
// fail to start without one.
//
// Contract with the runtime:
//   - every stage reads the Job from in.Job and its partition's witness by
//     in.Partition; outputs flow by the DataType constants in types.go;
//   - vram_stage and gpu_compute are device stages (Factory.Device): they use
//     in.Device (device 0 when the partition is unplaced); vram_stage opens
//     a stream and allocates the vectors, gpu_compute frees them and closes
//     the stream on every path, so a lock spanning vram_stage..gpu_compute
//     covers the partition's whole device footprint;
//   - when vram_stage's allocations fail with device.ErrOutOfMemory it
//     frees what it allocated and, as its on_oom option says, fails
//     Retryable ("retry", the default) or hands gpu_compute Deferred
//     buffers holding the host vectors ("upload_in_compute"), which
//     gpu_compute uploads inside its own lock, retryably on out of memory;
//   - bases that do not fit on the device fail vram_stage with an error
//     that is not retryable;
//   - an unsatisfied witness fails synthesize with gnark's solver error
//     (which names the failing constraint) wrapped, with the partition;
//   - circuits that use gnark commitments (api.Commit) are refused by
//     NewJob: the stages do not implement the commitment proof of knowledge.
package groth16
