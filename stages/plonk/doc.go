// Package plonk is PLONK on BLS12-381 (gnark v0.14's prover,
// backend/plonk/bls12-381/prove.go) cut into prooflane stages, a second
// proof family on the runtime beside stages/groth16.
//
// A partition's proof flows through eight stages, each one step of gnark's
// prover; the host steps (solving, the permutation ratio, the linearised
// polynomial, the folding of the batched opening) run on the CPU, the
// device steps through the stage host's device.Backend:
//
//	plonk.solve        host    solve the SparseR1CS: L, R, O in Lagrange form
//	plonk.commit_lro   device  [L], [R], [O]: MSMs over the Lagrange SRS; γ, β
//	plonk.ratio        host    the permutation ratio Z (iop.BuildRatioCopyConstraint)
//	plonk.commit_z     device  [Z]: MSM over the Lagrange SRS; α
//	plonk.quotient     device  the quotient numerator on the coset of 4n
//	                           (NTTs and element-wise vector operations),
//	                           h, [H1], [H2], [H3]; ζ
//	plonk.linearize    host    evaluations at ζ, the linearised polynomial,
//	                           the quotient of Z's opening at ωζ
//	plonk.open         device  [Z's opening quotient], [linearised polynomial]
//	plonk.batch_open   host+device  fold the six polynomials opened at ζ,
//	                           divide by X-ζ, commit: the batched opening
//
// Every KZG commitment is a G1 MSM over an SRS resident on the device
// (the canonical SRS under Key.Name+"/g1", the Lagrange SRS under
// Key.Name+"/lagrange"); the blinding terms' commitments (two or three
// points) are summed on the host, as gnark does. The Fiat-Shamir
// challenges are gnark's: the same transcript (sha256), names and order, so
// gnark's plonk.Verify accepts the proofs; the blinding is fresh
// randomness, so a proof is not gnark's bit for bit, but the quotient, the
// linearised polynomial and the openings are the same functions of it.
//
// Circuits with BSB22 commitments (api.Commit and the gadgets built on
// it) are refused by NewJob and NewKey, naming the circuit
// (ErrCommitments). A job's payload is a *Job: one key and one full
// witness per partition.
package plonk
