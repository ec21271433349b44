// Package groth16 is the Groth16 prover on BLS12-381 as six prooflane
// stages. A job (Job) proves P partitions of one circuit, each with its own
// witness; every partition runs the DAG
//
//	synthesize -> prep_msm -> b_g2_msm ----------------------------> epilogue
//	                       \-> vram_stage -> gpu_compute ----------/
//
//	groth16.synthesize   solve the R1CS: wire values and the a, b, c vectors,
//	                     and the commitments the solver asks for
//	groth16.prep_msm     filter wires whose A / B bases are infinity, split
//	                     scalars equal to one off for batch addition (zeros
//	                     are free in an MSM), convert to canonical form once
//	                     when the device wants it
//	groth16.b_g2_msm     the G2 MSM for B (on the CPU by default)
//	groth16.vram_stage   allocate and upload the partition's vectors
//	groth16.gpu_compute  H by NTTs, the G1 MSMs (A, B1, K, Z/H, and the
//	                     commitments' proof of knowledge) and the batch
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
//   - a hint that panics (gnark's gadgets' hints trust their inputs) fails
//     synthesize with an error naming it (solve.RecoverHints, internal/solve);
//   - circuits that commit (api.Commit, or the gadgets built on it:
//     std/rangecheck, std/math/emulated, std/lookup/logderivlookup,
//     std/hash/sha2...) prove, with any number of commitments (commit.go):
//     NewJob refuses only a system whose commitment info gnark's builder
//     could not have written (ErrMalformedCommitments), naming the
//     commitment.
//
// Commitments. gnark's solver needs each commitment's value while it
// solves: the hint that fills the commitment wire hashes the Pedersen
// commitment Σ vⱼ·Basisⱼ of the committed private wires. So synthesize
// computes that MSM inside the hint, through the device contract: on the
// engine's backend (the partition's device, or device Partition mod the
// devices before it is placed: synthesize runs before any device stage),
// over the commitment key's bases made resident there once. On the CPU
// backend that is gnark-crypto on every core, where gnark's prover takes
// one (ProveKnowledge and Commit run with NbTasks 1); on the CUDA backend
// the GPU, which matters because a circuit built on these gadgets commits
// to about half of its wires (the built-in emulated circuit: 46,787 of
// 107,229 at 2^16 constraints, 823,117 of 1,757,777 at 2^20), an MSM the
// size of the proving key's K: a G1 MSM of 2^20 points takes 793 ms on
// the 16 cores of an H100 host and 8.4 ms on the H100 (docs/gpu.md), and
// the solver waits for it. Commitments of fewer than commitOnDeviceMin
// (2^10) values are summed on the host, which takes on the order of a
// millisecond there (a thousandth of the 2^20 figure, less well spread),
// about what a device round trip (a stream, an upload, the MSM's kernel
// launches, a synchronization) costs before any arithmetic;
// BenchmarkCommitmentMSM measures both sides on a machine (not yet on a
// GPU). When the device has no room for the commitment key's bases, the
// commitment is computed on the host, a span event on synthesize saying
// so (the device memory estimate does not count the commitment keys).
// The MSM runs under a kernel span, msm_commit, inside synthesize's. The
// folded proof of knowledge needs the commitment wires' hash, known once
// the system is solved: prep_msm builds its scalars and gpu_compute runs
// it with the other G1 MSMs (msm_pok), over the commitment keys'
// BasisExpSigma resident with the key's other bases (bases: host keeps
// them on the host as it does the others).
//
// A system with std/lookup/logderivlookup's tables keeps the values of
// the solve in progress in its blueprints, which every solve of the
// system shares: synthesize solves each partition on a copy of the system
// with blueprints of its own, so that partitions still solve at once.
package groth16
