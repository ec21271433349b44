package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/service"
)

// swappingRunner is a worker's runner that hands back partition 0's
// proof as every partition's: well-formed proofs of other public inputs,
// as a faulty or hostile service could send.
type swappingRunner struct{ service.Runner }

func (s swappingRunner) Run(ctx context.Context, spec service.Spec, onEvent func(runtime.Event)) (*service.Output, error) {
	out, err := s.Runner.Run(ctx, spec, onEvent)
	if err == nil {
		for i := range out.Proofs {
			out.Proofs[i].Proof = out.Proofs[0].Proof
		}
	}
	return out, err
}

// testService starts a service in this process (embedded NATS with its
// queue in memory, the API on a loopback test server) with one worker
// whose runner is wrap of an engine runner on keysDir, and returns the
// API's URL. Everything stops when the test ends.
func testService(t *testing.T, keysDir string, wrap func(service.Runner) service.Runner) string {
	t.Helper()
	secret, err := service.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := service.StartNATS(service.NATSConfig{DataDir: t.TempDir(), Port: -1, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	// Closed after the worker has stopped (cleanups run last first).
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	er := &service.EngineRunner{KeysDir: keysDir, Backend: be}
	t.Cleanup(func() { er.Close(); be.Close() })
	var r service.Runner = er
	if wrap != nil {
		r = wrap(er)
	}
	q := service.QueueConfig{Memory: true, AckWait: 5 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	nc, err := service.Connect("", ns, secret, "test-server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	srv, err := service.NewServer(ctx, nc, service.ServerConfig{Queue: q, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	wnc, err := service.Connect("", ns, secret, "test-worker")
	if err != nil {
		t.Fatal(err)
	}
	w, err := service.NewWorker(ctx, service.WorkerConfig{Conn: wnc, Runner: r, Queue: q, Name: "w1", Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer wnc.Close()
		if err := w.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	return hs.URL
}

// submitTest submits a job of pipeline (chain at 64, two partitions) to
// the service at url and returns its id.
func submitTest(t *testing.T, url, pipeline string) string {
	t.Helper()
	rc, stdout, stderr := prooflane(t, "submit", "--addr", url, "--pipeline", pipeline, "--size", "64", "--partitions", "2", "--seed", "5")
	if rc != 0 {
		t.Fatalf("submit: exit %d: %s", rc, stderr)
	}
	return strings.TrimSpace(stdout)
}

// await --out writes what prove writes (proofs, public inputs, the
// verifying key file, the manifest) once every proof verifies against
// the client's key cache, and verify accepts the directory, in both
// families.
func TestAwaitWritesADirectoryVerifyAccepts(t *testing.T) {
	for _, fam := range []string{"groth16", "plonk"} {
		t.Run(fam, func(t *testing.T) {
			keysDir := t.TempDir()
			url := testService(t, keysDir, nil)
			id := submitTest(t, url, fam)
			out := filepath.Join(t.TempDir(), "out")
			rc, stdout, stderr := prooflane(t, "await", "--addr", url, "--keys", keysDir, "--out", out, id)
			if rc != 0 || !strings.Contains(stdout, "2 proofs, verified with ") {
				t.Fatalf("await: exit %d\n%s%s", rc, stdout, stderr)
			}
			for _, name := range []string{"manifest.json", "vk.bin", "proof-0.bin", "proof-1.bin", "public-0.bin", "public-1.bin"} {
				if _, err := os.Stat(filepath.Join(out, name)); err != nil {
					t.Errorf("await wrote no %s: %v", name, err)
				}
			}
			for _, args := range [][]string{{"--keys", keysDir}, {"--vk", filepath.Join(out, "vk.bin")}} {
				if rc, stdout, stderr := prooflane(t, append(append([]string{"verify"}, args...), out)...); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
					t.Errorf("verify %v of the awaited directory: exit %d\n%s%s", args, rc, stdout, stderr)
				}
			}
		})
	}
}

// await checks a result against a key of the client's before it writes
// anything: proofs that do not verify, or proofs of another key shipped
// with that key's verifying key, are refused (exit 1, no --out); with no
// key of the client's it refuses, unless told to trust the service's
// key, and then says that is what it checked with.
func TestAwaitRefusesAResultThatDoesNotVerify(t *testing.T) {
	keysDir := t.TempDir()
	if rc, _, stderr := prooflane(t, "setup", "--size", "64", "--keys", keysDir); rc != 0 {
		t.Fatalf("setup: exit %d: %s", rc, stderr)
	}
	vk := filepath.Join(t.TempDir(), "vk.bin")
	if rc, _, stderr := prooflane(t, "prove", "--size", "64", "--partitions", "1", "--keys", keysDir, "--out", filepath.Dir(vk)+"/p", "--progress", "off"); rc != 0 {
		t.Fatalf("prove: exit %d: %s", rc, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(vk), "p", "vk.bin")); err != nil || os.WriteFile(vk, b, 0o644) != nil {
		t.Fatalf("the key's vk.bin: %v", err)
	}
	refused := func(url, id, want string, args ...string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		rc, stdout, stderr := prooflane(t, append(append([]string{"await", "--addr", url, "--out", out}, args...), id)...)
		if rc != exitFailure || !strings.Contains(stderr, want) {
			t.Errorf("await %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, rc, stdout, stderr, want)
		}
		noProofsWritten(t, out)
	}

	swapped := testService(t, keysDir, func(r service.Runner) service.Runner { return swappingRunner{r} })
	id := submitTest(t, swapped, "groth16")
	refused(swapped, id, "partition 1 does not verify", "--keys", keysDir)
	refused(swapped, id, "partition 1 does not verify", "--vk", vk)

	// A service with keys of its own: its proofs verify against its key,
	// which it sends.
	forged := testService(t, t.TempDir(), nil)
	id = submitTest(t, forged, "groth16")
	refused(forged, id, "does not verify", "--vk", vk)
	refused(forged, id, "no verifying key of yours", "--keys", t.TempDir())
	refused(forged, id, "partition 0 does not verify", "--keys", keysDir)
	out := filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr := prooflane(t, "await", "--addr", forged, "--keys", t.TempDir(), "--trust-service-vk", "--out", out, id)
	if rc != 0 || !strings.Contains(stderr, "checked against the verifying key the service sent") ||
		!strings.Contains(stdout, "verified with the verifying key the service sent") {
		t.Errorf("await --trust-service-vk: exit %d, stdout %q, stderr %q", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--vk", filepath.Join(out, "vk.bin"), out); rc != 0 {
		t.Errorf("verify of the directory checked with the service's key: exit %d\n%s%s", rc, stdout, stderr)
	}
}
