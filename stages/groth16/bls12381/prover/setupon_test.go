package prover

import (
	"context"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// With a backend in the request, Setup makes the keys with prooflane's
// setup on its device (keys.SetupOn), saves them, and they prove.
func TestSetupOnTheRequestsBackendMakesKeysThatProve(t *testing.T) {
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	dir := t.TempDir()
	var log strings.Builder
	req := family.KeyRequest{Dir: dir, System: family.System{Name: "chain", Size: 256}, Force: true, Backend: be}
	if _, err := (Family{}).Setup(context.Background(), req, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "the bases on cpu device 0") {
		t.Errorf("log %q does not say where the bases were made", log.String())
	}
	s, err := keys.Cache{Dir: dir}.Load(t.Context(), "chain", 256)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := s.Witnesses(1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := g16.Prove(s.R1CS, s.PK, ws[0])
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ws[0].Public()
	if err != nil {
		t.Fatal(err)
	}
	if err := g16.Verify(proof, s.VK, pub.Vector().(fr.Vector)); err != nil {
		t.Errorf("proof with the keys set up on the backend: %v", err)
	}
}
