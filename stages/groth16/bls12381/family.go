package groth16

import "github.com/prooflane/prooflane/stages"

// Family is the Groth16 proof family as the family registry
// (stages/family) sees it: its groth16.* stage types make *Proof values.
type Family struct{}

// Name is the prefix of the family's stage types.
func (Family) Name() string { return "groth16" }

// ProofType is epilogue's output, the family's proof.
func (Family) ProofType() stages.DataType { return TypeProof }
