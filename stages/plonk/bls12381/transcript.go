package plonk

import (
	"crypto/sha256"
	"hash"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	fiatshamir "github.com/consensys/gnark-crypto/fiat-shamir"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
)

// The Fiat-Shamir steps of gnark's prover and verifier (prove.go and
// verify.go of backend/plonk/bls12-381, kzg.go of gnark-crypto), with
// their hash (sha256, gnark's default), challenge names and order: a
// proof's challenges must be the verifier's.

func newTranscript() *fiatshamir.Transcript {
	return fiatshamir.NewTranscript(sha256.New(), "gamma", "beta", "alpha", "zeta")
}

// bindPublicData binds the verifying key's commitments and the public
// inputs to challenge.
func bindPublicData(fs *fiatshamir.Transcript, challenge string, vk *gplonk.VerifyingKey, public []fr.Element) error {
	points := []curve.G1Affine{vk.S[0], vk.S[1], vk.S[2], vk.Ql, vk.Qr, vk.Qm, vk.Qo, vk.Qk}
	points = append(points, vk.Qcp...)
	for i := range points {
		if err := fs.Bind(challenge, points[i].Marshal()); err != nil {
			return err
		}
	}
	for i := range public {
		if err := fs.Bind(challenge, public[i].Marshal()); err != nil {
			return err
		}
	}
	return nil
}

// deriveRandomness binds points (uncompressed) to challenge and computes it.
func deriveRandomness(fs *fiatshamir.Transcript, challenge string, points ...*curve.G1Affine) (fr.Element, error) {
	var r fr.Element
	for _, p := range points {
		buf := p.RawBytes()
		if err := fs.Bind(challenge, buf[:]); err != nil {
			return r, err
		}
	}
	b, err := fs.ComputeChallenge(challenge)
	if err != nil {
		return r, err
	}
	r.SetBytes(b)
	return r, nil
}

// foldingChallenge is the γ of kzg.BatchOpenSinglePoint: bound to the
// point, the digests, the claimed values and the extra data, on a
// transcript of its own.
func foldingChallenge(hf hash.Hash, point fr.Element, digests []kzg.Digest, claimed []fr.Element, data ...[]byte) (fr.Element, error) {
	var gamma fr.Element
	fs := fiatshamir.NewTranscript(hf, "gamma")
	if err := fs.Bind("gamma", point.Marshal()); err != nil {
		return gamma, err
	}
	for i := range digests {
		if err := fs.Bind("gamma", digests[i].Marshal()); err != nil {
			return gamma, err
		}
	}
	for i := range claimed {
		if err := fs.Bind("gamma", claimed[i].Marshal()); err != nil {
			return gamma, err
		}
	}
	for _, d := range data {
		if err := fs.Bind("gamma", d); err != nil {
			return gamma, err
		}
	}
	b, err := fs.ComputeChallenge("gamma")
	if err != nil {
		return gamma, err
	}
	gamma.SetBytes(b)
	return gamma, nil
}
