// Package ccsfile reads constraint system files that gnark v0.14's
// WriteTo wrote, from users (prove --ccs, circuits add --ccs) and from
// prooflane's key caches, without trusting them: an R1CS (Groth16) or a
// SparseR1CS (PLONK) over BLS12-381's scalar field.
//
// gnark's decoder trusts the file: it decodes sections in goroutines of
// its own, where a length or a compressed block that does not fit its
// section panics (or, in the integer decompressor, loops for ever), and
// no recover of the caller's can catch that; its solver, in goroutines
// of its own too, indexes wires, coefficients and calldata as the file
// says, and runs the levels in the order the file gives. So a file is
// checked in two steps, and what passes both decodes and solves without
// a panic or a hang:
//
//   - CheckLayout (layout.go, intcomp.go), before gnark sees the bytes:
//     the version of gnark that wrote them, every length of the
//     container and of its sections, and the block structure of every
//     compressed integer stream, against the bytes that are there;
//   - CheckSolvable (system.go and, a file a concern, fields.go,
//     blueprints.go, commitments.go, levels.go, debuginfo.go), after
//     gnark decoded them, in the caller's goroutine: the system's kind,
//     field and coefficients; every instruction's blueprint (one that
//     gnark's frontends emit for the kind: constraints, hints,
//     log-derivative lookups; anything else is refused naming its Go
//     type, and a GKR sub-circuit by name), calldata, wires and
//     coefficients; the commitments as the setups and provers index
//     them; the levels run as the solver runs them; the debug entries.
//
// Read does both on a file it opens only when it is a regular file,
// bounded by a limit checked before anything is allocated, reading it
// whole (the checks and the decoder see the same bytes) and stopping
// when its context is done. Errors name the file and what is wrong:
//
//	constraint system "c.ccs": level 3: instruction 1234 (blueprint 5, *constraint.BlueprintLookupHint[github.com/consensys/gnark/constraint.U64]): reads wire 900, which no earlier level solves
//
// Solve what Read returns with solve.RecoverHints (internal/solve) as the last solver option
// (through a prover: backend.WithSolverOptions): hints trust their inputs,
// and a file sets the constants among them (a limb width, a bit count),
// so a std gadget's hint can panic, in the solver's goroutines, on a file
// that passes every check; under solve.RecoverHints that panic is the solve's
// error. A hint still computes with what it is given: a bit count of a
// million makes a big number of a million bits.
//
// Memory: Read holds the file's bytes while gnark decodes them into a
// system of about three times their size (257 MB for the 81 MB file of
// the 2^20-constraint chain); the checks add a bit a wire and a bit an
// instruction. That is for what gnark writes: its decoder of the CBOR
// body (names, debug and log entries, the symbol table) allocates what
// the body declares, up to about 85 bytes for a byte of a crafted one
// (an empty debug entry is one byte: a 1 MB file of them decodes into
// 89 MB), so set the limit with that in mind. The limit bounds the file, not the system's wires, which the
// caller's admission weighs once the system is read.
//
// Fields: every check but the coefficient table's is the same for every
// field; another field (BN254) is another entry of fields.go's table and
// a parameter of Read.
//
// Cost, on systems of about 2^20 constraints: the chain circuit of
// stages/groth16/circuits (x <- x*x + i) and one range-checking values
// to 32 bits (std/rangecheck: lookups under a commitment), each with
// both builders, against gnark's decode alone; the fastest of eight runs
// on a 2-core AMD EPYC shared with other work (load average about 10,
// so every figure is high):
//
//	system                 file     decode    CheckLayout  CheckSolvable
//	chain R1CS             81 MB    214 ms    20 ms        135 ms
//	chain SparseR1CS       52 MB    158 ms    25 ms         54 ms
//	rangecheck R1CS        48 MB    450 ms     1 ms        162 ms
//	rangecheck SparseR1CS  26 MB    128 ms     4 ms         66 ms
//
// The checks cost a third to two thirds of the decode again, in one
// goroutine, and allocate a fraction of what it does (27 MB for the
// chain's R1CS, 17 MB for the range checks'). Measured with
//
//	go test ./internal/ccsfile -run XXX -bench BenchmarkRead -benchtime 3x -count 5 -benchmem
package ccsfile
