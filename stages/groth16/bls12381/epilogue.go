package groth16

import (
	"context"
	"fmt"
	"math/big"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/stages"
)

// epilogue samples r and s, assembles the proof and, unless its config
// says verify: false, checks it with the verifying key: a proof that does
// not verify fails the partition instead of leaving the prover.
type epilogue struct{ cfg EpilogueConfig }

func (s epilogue) Run(ctx context.Context, in *stages.Input) (any, error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	g1, err := stages.Get[*G1MSMs](in, TypeG1MSMs)
	if err != nil {
		return nil, err
	}
	g2, err := stages.Get[*G2MSM](in, TypeG2MSM)
	if err != nil {
		return nil, err
	}
	var r, sc fr.Element
	if _, err := r.SetRandom(); err != nil {
		return nil, fmt.Errorf("partition %d: sample r: %w", in.Partition, err)
	}
	if _, err := sc.SetRandom(); err != nil {
		return nil, fmt.Errorf("partition %d: sample s: %w", in.Partition, err)
	}
	proof := Assemble(j.PK, g1, g2, r, sc)
	if s.cfg.Verify {
		if err := j.Verify(in.Partition, proof); err != nil {
			return nil, fmt.Errorf("partition %d: %w: the proving key or a stage's output is wrong, so the proof is not returned", in.Partition, err)
		}
	}
	return proof, ctx.Err()
}

// Assemble builds the proof from the MSM results and r, s, exactly as
// gnark's prover does:
//
//	Ar  = α₁ + Σ wA·A + r·δ₁
//	Bs  = β₂ + Σ wB·B₂ + s·δ₂
//	Bs1 = β₁ + Σ wB·B₁ + s·δ₁
//	Krs = Σ wK·K + Σ h·Z + s·Ar + r·Bs1 − rs·δ₁
//
// with the commitments and their folded proof of knowledge as g1 has
// them (none without commitments; K then leaves out the committed and
// commitment wires).
func Assemble(pk *g16.ProvingKey, g1 *G1MSMs, g2 *G2MSM, r, s fr.Element) *g16.Proof {
	var kr fr.Element
	kr.Mul(&r, &s).Neg(&kr)
	deltas := curve.BatchScalarMultiplicationG1(&pk.G1.Delta, []fr.Element{r, s, kr})

	var rb, sb big.Int
	r.BigInt(&rb)
	s.BigInt(&sb)

	proof := &g16.Proof{Commitments: g1.Commitments}
	if proof.Commitments == nil {
		proof.Commitments = []curve.G1Affine{}
	}
	proof.CommitmentPok.FromJacobian(&g1.PoK)
	ar := g1.A
	ar.AddMixed(&pk.G1.Alpha)
	ar.AddMixed(&deltas[0])
	proof.Ar.FromJacobian(&ar)

	bs1 := g1.B1
	bs1.AddMixed(&pk.G1.Beta)
	bs1.AddMixed(&deltas[1])

	krs := g1.K
	krs.AddMixed(&deltas[2])
	krs.AddAssign(&g1.H)
	var p1 curve.G1Jac
	p1.ScalarMultiplication(&ar, &sb)
	krs.AddAssign(&p1)
	p1.ScalarMultiplication(&bs1, &rb)
	krs.AddAssign(&p1)
	proof.Krs.FromJacobian(&krs)

	bs := g2.B
	var deltaS curve.G2Jac
	deltaS.FromAffine(&pk.G2.Delta)
	deltaS.ScalarMultiplication(&deltaS, &sb)
	bs.AddAssign(&deltaS)
	bs.AddMixed(&pk.G2.Beta)
	proof.Bs.FromJacobian(&bs)
	return proof
}
