package service

import (
	"context"
	"os"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/prooflane/prooflane/internal/keyfile"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// A constraint system corrupt under a valid checksum (a content edit
// with the trailer recomputed) fails the job naming the file, once; the
// server keeps answering Status and Health. Before, gnark's decoder
// panicked on a goroutine of its own in the in-process worker, taking
// the API and the queue down with it on every delivery.
func TestAJobOfACorruptConstraintSystemFailsNamingItAndTheServerAnswers(t *testing.T) {
	h := newHarness(t, "")
	s, err := keys.Setup(testCircuit, testSize)
	if err != nil {
		t.Fatal(err)
	}
	cache := keys.Cache{Dir: h.keys}
	if err := cache.Save(s); err != nil {
		t.Fatal(err)
	}
	rp, _, _ := cache.Paths(testCircuit, testSize)
	b, err := os.ReadFile(rp)
	if err != nil {
		t.Fatal(err)
	}
	b = b[:len(b)-keyfile.TrailerLen]
	// The length of the first level's stream (after the file's and the
	// system's headers and the count of levels), which gnark decodes on a
	// goroutine of its own: 2^62 (little endian) overflows its bounds
	// check.
	copy(b[32+32+8:], []byte{0, 0, 0, 0, 0, 0, 0, 0x40})
	if err := os.WriteFile(rp, append(b, keyfile.Trailer(b)...), 0o644); err != nil {
		t.Fatal(err)
	}
	h.start(WorkerConfig{Name: "w1"})
	id := h.submit(testSpec(1), 0)
	want := `key file "` + rp + `" is corrupt`
	if _, err := h.await(id); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("await: %v, want %q", err, want)
	}
	if st := h.status(id); st.State != pb.JobState_JOB_STATE_FAILED || st.Deliveries != 1 || !strings.Contains(st.Error, want) {
		t.Errorf("status: %v after %d deliveries, error %q; want failed once naming %s", st.State, st.Deliveries, st.Error, rp)
	}
	if _, err := h.client.Health(context.Background(), connect.NewRequest(&pb.HealthRequest{})); err != nil {
		t.Errorf("health after the job: %v", err)
	}
}
