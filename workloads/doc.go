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
// emulated is built on gadgets that commit (api.Commit: gnark's
// std/rangecheck and std/math/emulated), as most real gnark circuits are:
// its proofs carry a Pedersen commitment and its proof of knowledge. The
// others are commitment-free.
//
//	chain     dense multiplication chain x <- x*x + i; every wire is random
//	sha256    SHA-256 hash chain written over bits; most wires are 0 or 1
//	mimc      MiMC hash chain (gnark's std MiMC), dense arithmetic
//	emulated  secp256k1 base-field products and 32-bit range checks; one
//	          commitment to about half of the wires
package workloads
