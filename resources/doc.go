// Package resources implements the named locks that pipeline stages hold
// while they run: mutexes (capacity 1) and weighted semaphores (capacity > 1),
// declared in YAML, with templates such as "gpu.{gpu}.mem" that expand to one
// resource per device.
//
// The contract:
//
//   - A Set holds the concrete resources of one engine, numbered by ID in
//     canonical order: declaration order, with a template replaced in place by
//     its devices 0..N-1.
//   - Set.Acquire takes all the claims of one request in canonical order, one
//     resource after the other, holding those already taken while it queues on
//     the next. Since every request climbs the same order, requests cannot
//     deadlock each other.
//   - On each resource, waiters are served by priority (higher first), then in
//     order of arrival (the Acquire call). A waiter at the head of the queue
//     that does not fit blocks those behind it, so a large request is not
//     starved by a stream of small ones (like semaphore.Weighted).
//   - A claim above its resource's capacity is rejected at once with
//     ErrOverCapacity; it never blocks.
//   - A failed or cancelled Acquire leaves the Set as it was: everything taken
//     so far is given back and waiters behind it are served.
//   - Grant.Release gives everything back; releasing twice is a no-op.
//     Grant.Split hands some claims over to a new Grant without freeing them,
//     for a lock that outlives the stage that took it (a span lock).
//   - Set.Stats counts, per resource, grants, contended grants, wait and
//     weighted hold time; Set.SetClock injects a clock for exact tests.
//
// All state is guarded by one mutex per Set; no goroutines are started.
package resources
