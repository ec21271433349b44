// Package workloads holds the circuits prooflane ships for benchmarks and
// demos, a registry of them by name, and their seeded witnesses: what
// bench, loadtest, the scale runs and `prove --circuit` prove. Both proof
// families compile them (Groth16 to an R1CS, PLONK to a SparseR1CS); a
// user's own circuit never goes through this package.
//
// Each kind builds a circuit of about a requested number of R1CS
// constraints (Kind.New) and, for a seed, a satisfying assignment that is
// different for every seed, so the P partitions of a job prove P different
// witnesses. Unsatisfied returns an assignment that breaks exactly one
// constraint (the last equality on the public output), for tests of error
// reporting.
//
// Every shipped circuit is commitment-free (no api.Commit, no gadget that
// uses one internally, such as gnark's std sha2, lookup or rangecheck): the
// prooflane stages refuse circuits with commitments at load time.
//
//	chain   dense multiplication chain x <- x*x + i; every wire is random
//	sha256  SHA-256 hash chain written over bits; most wires are 0 or 1
//	mimc    MiMC hash chain (gnark's std MiMC), dense arithmetic
package workloads
