// Package service is prooflane's proving service: the API that
// `prooflane serve` answers, the durable queue behind it and the workers
// that run its jobs, in this process or on other machines.
//
// The contract (docs/service.md has it for users):
//
//   - The API (ProverService in proto/, served by Server.Handler over
//     Connect, gRPC and gRPC-Web) checks a request fully before it changes
//     anything; a bad one gets InvalidArgument naming the field. Submit
//     returns once the job's record is in JetStream's key-value store and
//     its message is on its lane's work queue: an accepted job survives a
//     restart of the server.
//   - A user's circuit is added once (AddCircuit, its files streamed in
//     chunks): its constraint system read by its family's reader within
//     the family's size and the file limits, the user's keys checked
//     against it, the memory of that check admitted against the host's,
//     before anything is stored; its id is the system's content name
//     (family.CompiledSystem), the same for the same system. A job of it
//     carries its witnesses (inline, or uploaded first), each checked
//     against the circuit before the job is queued. Workers fetch the
//     circuit by id into their key cache directory, and use the user's
//     keys or set up the system's once.
//   - Each priority is a lane; a Worker takes work from the highest lane
//     that has any, admits it against its host and device memory budgets
//     (waiters served by lane), hands a job waiting for memory back to the
//     queue when a higher lane has work, and gives the job's lane to the
//     engine as the job's runtime priority.
//   - A job runs at least once: its message is acknowledged only when it
//     has ended, and a worker that stops heartbeating loses it to another.
//     A job id has exactly one result: the first worker to finish stores
//     it with a key-value create; later finishers find it and drop theirs.
//   - Serve and its workers share the queue's Secret (API clients need
//     only the token): it is their NATS credential (an nkey user derived
//     from it) and the key of each result's HMAC, which a worker writes
//     with the result and Await checks; a result without the right one
//     is refused (data_loss), and a worker replaces it with its own.
//   - A Runner is all a worker knows of proving: EngineRunner drives every
//     registered family through family.Prover, keeps keys and engines
//     loaded, and checks each proof once before it leaves the worker:
//     the pipeline's final stage does (its verify option, the default),
//     or else the runner with the job's verifier. A result carries the
//     key's name, constraint count and verifying key for the client's
//     manifest; a client checks the proofs against its own key.
//
// NATS is embedded (StartNATS) for one machine, or external (Connect) for
// many; the streams, buckets and consumers are created by the first
// process that finds them missing, with QueueConfig.Replicas copies on a
// cluster. Operations on the queue's state are tried again while its
// servers do not answer (a cluster electing a leader), within a bound.
package service
