// Package plonk is PLONK on BLS12-381 (gnark v0.14's prover,
// backend/plonk/bls12-381/prove.go) cut into prooflane stages, a second
// proof family on the runtime beside stages/groth16.
//
// A partition's proof flows through nine stages, each one step of gnark's
// prover; the host steps (solving, the permutation ratio, the linearised
// polynomial, the folding of the batched opening) run on the CPU, the
// device steps through the stage host's device.Backend:
//
//	plonk.solve        host    solve the SparseR1CS: L, R, O in Lagrange form,
//	                           the BSB22 commitments [pi2] (below)
//	plonk.commit_lro   device  [L], [R], [O]: MSMs over the Lagrange SRS; γ, β
//	plonk.ratio        host    the permutation ratio Z (iop.BuildRatioCopyConstraint)
//	plonk.commit_z     device  [Z]: MSM over the Lagrange SRS; α
//	plonk.quotient     device  the quotient numerator on the coset of 4n
//	                           (NTTs and element-wise vector operations),
//	                           h, [H1], [H2], [H3]; ζ
//	plonk.linearize    host    evaluations at ζ, the linearised polynomial,
//	                           the quotient of Z's opening at ωζ
//	plonk.open         device  [Z's opening quotient], [linearised polynomial]
//	plonk.fold         host    fold the six polynomials opened at ζ (and
//	                           the Qcp selectors), divide by X-ζ
//	plonk.batch_open   device  commit: the batched opening
//
// Every KZG commitment but the BSB22 ones is a G1 MSM over an SRS
// resident on the device
// (the canonical SRS under Key.Name+"/g1", the Lagrange SRS under
// Key.Name+"/lagrange"); the blinding terms' commitments (two or three
// points) are summed on the host, as gnark does. The Fiat-Shamir
// challenges are gnark's: the same transcript (sha256), names and order, so
// gnark's plonk.Verify accepts the proofs; the blinding is fresh
// randomness, so a proof is not gnark's bit for bit, but the quotient, the
// linearised polynomial and the openings are the same functions of it.
//
// BSB22 commitments (api.Commit, which std/rangecheck,
// std/lookup/logderivlookup, std/math/emulated and std/hash/sha2 call
// through std/multicommit) are gnark's (bsb22.go): solve replaces the
// solver's placeholder hint, and each commitment's committed polynomial
// pi2 (Lagrange form: the committed values at their rows, random values at
// the commitment's row and the last constraint's, zero elsewhere) is
// committed and hashed to the field while the solver waits for the hash;
// the proof carries [pi2], α is bound to it before [Z], the quotient adds
// Qcp·pi2 to the gate constraint (and the hashes to Qk), the linearised
// polynomial Qcp(ζ)·pi2(X), and the batched opening every Qcp at ζ.
//
// The commitment inside the solver runs on the host, gnark-crypto's MSM
// over the Lagrange SRS's points at pi2's non-zero rows only (a committed
// value's row each, and two): solve is a host stage holding host locks,
// and the solver cannot go on before the hash, so the device would be
// used outside its stage locks, or held idle through solving. The MSM is
// sparse, a fraction of a dense one: std/rangecheck commits to about one
// row in seven (3,074 rows of n = 2^14, 17,410 of 2^17; std/math/emulated
// 8,528 of 2^16, std/hash/sha2 147,112 of 2^20), and the sparse MSM takes
// 11 ms at 2^14 and 64 ms at 2^17 where the dense MSM of n the device
// contract makes (MSMG1 over the first n bases) takes 28 and 236 ms on
// the CPU backend (BenchmarkBSB22Commitment, 2 cores). On a GPU the dense
// MSM would be faster than the host's sparse one, but it would run inside
// solve without the device's locks, or hold them through the whole
// solve; on the host it is about a quarter of one of the proof's ten
// MSMs of n, under the host locks solve already holds, while other
// partitions keep the device busy.
//
// A job's payload is a *Job: one key and one full witness per partition.
package plonk
