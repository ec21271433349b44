package groth16

import (
	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/stages/groth16"
)

// Curve is the curve of this package's jobs and keys.
const Curve = ecc.BLS12_381

// Family is the Groth16 proof family (stages/groth16.Family: its name
// and proof type).
type Family = groth16.Family

// The stage options, type names and data types are the family's, the
// same on every curve (package stages/groth16).
type (
	PrepConfig     = groth16.PrepConfig
	G2Config       = groth16.G2Config
	VRAMConfig     = groth16.VRAMConfig
	EpilogueConfig = groth16.EpilogueConfig
)

const (
	TypeNameSynthesize = groth16.TypeNameSynthesize
	TypeNamePrepMSM    = groth16.TypeNamePrepMSM
	TypeNameBG2MSM     = groth16.TypeNameBG2MSM
	TypeNameVRAMStage  = groth16.TypeNameVRAMStage
	TypeNameGPUCompute = groth16.TypeNameGPUCompute
	TypeNameEpilogue   = groth16.TypeNameEpilogue

	TypeSolution      = groth16.TypeSolution
	TypeMSMInputs     = groth16.TypeMSMInputs
	TypeG2MSM         = groth16.TypeG2MSM
	TypeDeviceBuffers = groth16.TypeDeviceBuffers
	TypeG1MSMs        = groth16.TypeG1MSMs
	TypeProof         = groth16.TypeProof

	BasesDevice          = groth16.BasesDevice
	BasesHost            = groth16.BasesHost
	TablesAuto           = groth16.TablesAuto
	TablesOff            = groth16.TablesOff
	OnOOMRetry           = groth16.OnOOMRetry
	OnOOMUploadInCompute = groth16.OnOOMUploadInCompute
)

// tablesCap reads a `tables:` value (groth16.TablesCap).
var tablesCap = groth16.TablesCap
