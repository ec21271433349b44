package family_test

import (
	"testing"

	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
)

// A commitment hash is read by name ("" is the default), and taken by a
// family that declares it (Groth16, on every curve through family.ByCurve)
// and by no other: PLONK's proofs take the default alone, and asking one
// of its jobs or keys for another hash is an error.
func TestCommitmentHashesAreTakenByTheFamiliesThatDeclareThem(t *testing.T) {
	for in, want := range map[string]family.CommitmentHash{"": family.RFC9380, "rfc9380": family.RFC9380, "keccak256": family.Keccak256} {
		if h, err := family.ParseCommitmentHash(in); err != nil || h != want {
			t.Errorf("ParseCommitmentHash(%q) = %q, %v; want %q", in, h, err, want)
		}
	}
	if _, err := family.ParseCommitmentHash("Keccak256"); err == nil || err.Error() != `"Keccak256" is not a commitment hash: want one of rfc9380, keccak256` {
		t.Errorf("ParseCommitmentHash(%q): %v", "Keccak256", err)
	}
	for name, takes := range map[string]bool{"groth16": true, "plonk": false} {
		f, _ := builtin.Families().Lookup(name)
		fp := f.(family.Prover)
		if !family.TakesCommitmentHash(fp, family.RFC9380) {
			t.Errorf("%s does not take the default hash", name)
		}
		if got := family.TakesCommitmentHash(fp, family.Keccak256); got != takes {
			t.Errorf("%s takes keccak256: %v, want %v", name, got, takes)
		}
	}
	if err := family.SetCommitmentHash(plainJob{}, family.Keccak256); err == nil {
		t.Error("a job without the capability took keccak256")
	}
	if err := family.SetCommitmentHash(plainJob{}, family.RFC9380); err != nil {
		t.Errorf("the default hash on a job without the capability: %v", err)
	}
	if _, err := family.VerifyingKeyWithHash(plainKey{}, family.Keccak256); err == nil {
		t.Error("a verifying key without the capability took keccak256")
	}
}

type plainJob struct{ family.Job }

type plainKey struct{ family.VerifyingKey }

func (plainKey) From() string { return "key.bin" }
