// Package groth16 is what the Groth16 family's curves share: its stage
// options (config.go), stage type names and data types, and its name and
// proof type (Family). The stages, keys and prover are per curve:
// stages/groth16/bls12381 (with keys and prover below it) and its
// generated BN254 copy, stages/groth16/bn254; stages/groth16/prover makes
// them one family whose stage types run either curve's job (the
// package doc of stages/groth16/bls12381 describes the stages).
package groth16

import "github.com/prooflane/prooflane/stages"

// Stage type names.
const (
	TypeNameSynthesize = "groth16.synthesize"
	TypeNamePrepMSM    = "groth16.prep_msm"
	TypeNameBG2MSM     = "groth16.b_g2_msm"
	TypeNameVRAMStage  = "groth16.vram_stage"
	TypeNameGPUCompute = "groth16.gpu_compute"
	TypeNameEpilogue   = "groth16.epilogue"
)

// Data types flowing between the stages.
const (
	// TypeSolution is synthesize's *Solution.
	TypeSolution stages.DataType = "groth16.solution"
	// TypeMSMInputs is prep_msm's *MSMInputs.
	TypeMSMInputs stages.DataType = "groth16.msm_inputs"
	// TypeG2MSM is b_g2_msm's *G2MSM.
	TypeG2MSM stages.DataType = "groth16.g2_msm"
	// TypeDeviceBuffers is vram_stage's *DeviceBuffers.
	TypeDeviceBuffers stages.DataType = "groth16.device_buffers"
	// TypeG1MSMs is gpu_compute's *G1MSMs.
	TypeG1MSMs stages.DataType = "groth16.g1_msms"
	// TypeProof is epilogue's *Proof.
	TypeProof stages.DataType = "groth16.proof"
)

// Family is the Groth16 proof family as the family registry
// (stages/family) sees it: its groth16.* stage types make *Proof values.
type Family struct{}

// Name is the prefix of the family's stage types.
func (Family) Name() string { return "groth16" }

// ProofType is epilogue's output, the family's proof.
func (Family) ProofType() stages.DataType { return TypeProof }
