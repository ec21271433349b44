package solidity_test

import (
	"testing"

	"github.com/prooflane/prooflane/internal/evmtest"
	"github.com/prooflane/prooflane/solidity"
)

// checkOnTheEVM deploys the contract of f's key and checks that it
// accepts f's proof, and rejects (false, or a revert) the tampered proof
// and the proof against other public inputs.
func checkOnTheEVM(t *testing.T, f evmtest.Fixture, opts ...solidity.Option) {
	t.Helper()
	key, err := solidity.ReadKey(f.VK)
	if err != nil {
		t.Fatal(err)
	}
	v := evmtest.Deploy(t, key, opts...)
	if ok, reverted := v.Verify(t, f.Proof, f.Public); !ok || reverted != nil {
		t.Errorf("the contract rejects the proof: accepted %v, reverted %v", ok, reverted)
	}
	if ok, reverted := v.Verify(t, f.Tampered, f.Public); ok {
		t.Error("the contract accepts the tampered proof")
	} else {
		t.Logf("tampered proof: reverted %v", reverted)
	}
	if ok, reverted := v.Verify(t, f.Proof, f.WrongPublic); ok {
		t.Error("the contract accepts the proof for other public inputs")
	} else {
		t.Logf("other public inputs: reverted %v", reverted)
	}
}

// Groth16's contract accepts a BN254 proof and rejects a tampered one and
// other public inputs, with a commitment too (hashed with keccak256 by
// the prover, as the contract hashes it).
func TestGroth16ContractVerifiesProofsOnTheEVM(t *testing.T) {
	evmtest.Solc(t)
	for _, commit := range []bool{false, true} {
		t.Run(name(commit), func(t *testing.T) {
			var opts []solidity.Option
			if commit {
				opts = append(opts, solidity.KeccakCommitments())
			}
			checkOnTheEVM(t, evmtest.Groth16(t, commit), opts...)
		})
	}
}

// PLONK's contract accepts a BN254 proof and rejects a tampered one and
// other public inputs, with a BSB22 commitment too (gnark's prover's
// default hash, the one prooflane's PLONK prover uses).
func TestPlonkContractVerifiesProofsOnTheEVM(t *testing.T) {
	evmtest.Solc(t)
	for _, commit := range []bool{false, true} {
		t.Run(name(commit), func(t *testing.T) {
			checkOnTheEVM(t, evmtest.Plonk(t, commit))
		})
	}
}
