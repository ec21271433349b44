package plonk

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/plonk"
)

// jobPayload is what every PLONK stage reads from Input.Job.
const jobPayload = "a *plonk.Job (key, one witness per partition): prove with `prooflane prove --pipeline plonk` or build it with plonk.NewJob"

// Factories returns the PLONK stage types.
func Factories() []stages.Factory {
	host := func(typ, doc string, in, out stages.DataType, st stages.Stage) stages.Factory {
		f := stages.Factory{Type: typ, Doc: doc, Output: out, Payload: jobPayload,
			New: func(stages.Config) (stages.Stage, error) { return st, nil }}
		if in != "" {
			f.Inputs = []stages.DataType{in}
		}
		return f
	}
	dev := func(typ, doc string, in, out stages.DataType, mk func(onDevice) stages.Stage) stages.Factory {
		return stages.Factory{Type: typ, Doc: doc, Inputs: []stages.DataType{in}, Output: out, Payload: jobPayload,
			Device: true, Busy: true,
			New: func(stages.Config) (stages.Stage, error) { return mk(onDevice{typ: typ}), nil }}
	}
	return []stages.Factory{
		host(TypeNameSolve, "Solve the SparseR1CS for the partition's witness: L, R, O in Lagrange form; draw the blinding polynomials.",
			"", TypeSolved, solve{}),
		dev(TypeNameCommitLRO, "Commit to L, R, O (MSMs over the Lagrange SRS on the device, blinded); derive gamma and beta.",
			TypeSolved, TypeLRO, func(d onDevice) stages.Stage { return &commitLRO{d} }),
		host(TypeNameRatio, "Build the permutation ratio Z in Lagrange form on the host.",
			TypeLRO, TypeRatio, ratio{}),
		dev(TypeNameCommitZ, "Commit to Z (an MSM over the Lagrange SRS on the device, blinded); derive alpha.",
			TypeRatio, TypeZ, func(d onDevice) stages.Stage { return &commitZ{d} }),
		dev(TypeNameQuotient, "The quotient on the 4n coset on the device (NTTs, element-wise numerator), its three commitments; derive zeta.",
			TypeZ, TypeQuotient, func(d onDevice) stages.Stage { return &quotient{d} }),
		host(TypeNameLinearize, "Evaluate at zeta, open Z at omega*zeta, build the linearised polynomial on the host.",
			TypeQuotient, TypeLinearized, linearize{}),
		dev(TypeNameOpen, "Commit to Z's opening quotient and to the linearised polynomial on the device.",
			TypeLinearized, TypeOpened, func(d onDevice) stages.Stage { return &open{d} }),
		host(TypeNameFold, "Fold the polynomials opened at zeta and divide by X-zeta on the host.",
			TypeOpened, TypeFolded, fold{}),
		batchOpenFactory(),
	}
}

// batchOpenFactory is plonk.batch_open's factory: a device stage with a
// config (BatchOpenConfig).
func batchOpenFactory() stages.Factory {
	return stages.Factory{Type: TypeNameBatchOpen,
		Doc:    "Commit to the folded quotient on the device: the batched opening, the proof's last part; check the proof with the verifying key (verify: false to skip).",
		Inputs: []stages.DataType{TypeFolded}, Output: TypeProof, Payload: jobPayload, Device: true, Busy: true,
		NewConfig: func() stages.Config { return &BatchOpenConfig{Verify: true} },
		New: func(c stages.Config) (stages.Stage, error) {
			cfg, ok := c.(*BatchOpenConfig)
			if !ok {
				return nil, fmt.Errorf("%s: config %T, want *plonk.BatchOpenConfig", TypeNameBatchOpen, c)
			}
			return &batchOpen{onDevice: onDevice{typ: TypeNameBatchOpen}, verify: cfg.Verify}, nil
		}}
}

// Family is PLONK as stages/family sees it (stages/plonk.Family: its
// name and proof type) with its keys, jobs and verifier.
type Family struct{ plonk.Family }

// Curve is the curve of this package's jobs and keys.
const Curve = ecc.BLS12_381

// The stage options, type names and data types are the family's, the
// same on every curve (package stages/plonk).
type BatchOpenConfig = plonk.BatchOpenConfig

const (
	TypeNameSolve     = plonk.TypeNameSolve
	TypeNameCommitLRO = plonk.TypeNameCommitLRO
	TypeNameRatio     = plonk.TypeNameRatio
	TypeNameCommitZ   = plonk.TypeNameCommitZ
	TypeNameQuotient  = plonk.TypeNameQuotient
	TypeNameLinearize = plonk.TypeNameLinearize
	TypeNameOpen      = plonk.TypeNameOpen
	TypeNameFold      = plonk.TypeNameFold
	TypeNameBatchOpen = plonk.TypeNameBatchOpen

	TypeSolved     = plonk.TypeSolved
	TypeLRO        = plonk.TypeLRO
	TypeRatio      = plonk.TypeRatio
	TypeZ          = plonk.TypeZ
	TypeQuotient   = plonk.TypeQuotient
	TypeLinearized = plonk.TypeLinearized
	TypeOpened     = plonk.TypeOpened
	TypeFolded     = plonk.TypeFolded
	TypeProof      = plonk.TypeProof
)
