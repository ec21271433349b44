// Package plonk is what the PLONK family's curves share: its stage
// options (config.go), stage type names and data types, and its name and
// proof type (Family). The stages, keys and prover are per curve:
// stages/plonk/bls12381 and its generated BN254 copy, stages/plonk/bn254;
// stages/plonk/prover makes them one family whose stage types run either
// curve's job (the package doc of stages/plonk/bls12381 describes the
// stages).
package plonk

import "github.com/prooflane/prooflane/stages"

// Stage type names.
const (
	TypeNameSolve     = "plonk.solve"
	TypeNameCommitLRO = "plonk.commit_lro"
	TypeNameRatio     = "plonk.ratio"
	TypeNameCommitZ   = "plonk.commit_z"
	TypeNameQuotient  = "plonk.quotient"
	TypeNameLinearize = "plonk.linearize"
	TypeNameOpen      = "plonk.open"
	TypeNameFold      = "plonk.fold"
	TypeNameBatchOpen = "plonk.batch_open"
)

// Data types flowing between the stages: each is the *State of one
// partition, after the stage that outputs it.
const (
	TypeSolved     stages.DataType = "plonk.solved"
	TypeLRO        stages.DataType = "plonk.lro"
	TypeRatio      stages.DataType = "plonk.ratio"
	TypeZ          stages.DataType = "plonk.z"
	TypeQuotient   stages.DataType = "plonk.quotient"
	TypeLinearized stages.DataType = "plonk.linearized"
	TypeOpened     stages.DataType = "plonk.opened"
	TypeFolded     stages.DataType = "plonk.folded"
	// TypeProof is batch_open's output: the *gplonk.Proof.
	TypeProof stages.DataType = "plonk.proof"
)

// Family is PLONK as stages/family sees it.
type Family struct{}

// Name is the prefix of the family's stage types.
func (Family) Name() string { return "plonk" }

// ProofType is batch_open's output, the proof.
func (Family) ProofType() stages.DataType { return TypeProof }
