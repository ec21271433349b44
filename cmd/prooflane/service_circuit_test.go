//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// serveProcess starts `prooflane serve` as a process of its own (its API
// on a free loopback port, its queue in a directory of the test's, its
// worker's key cache keysDir) and returns the API's URL. It is stopped
// when the test ends, its stderr shown if the test failed.
func serveProcess(t *testing.T, keysDir string) string {
	t.Helper()
	cmd := cli("serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", keysDir, "--nats-listen", "none")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	url := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if u, ok := strings.CutPrefix(sc.Text(), "prooflane serve: listening on "); ok {
				url <- u
			}
		}
		close(url)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		<-done
		if t.Failed() {
			t.Logf("serve:\n%s", log.String())
		}
	})
	u, ok := <-url
	if !ok {
		t.Fatal("serve ended before it listened")
	}
	return u
}

// lastLine is the last line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

var circuitID = regexp.MustCompile(`^circuit-[0-9a-f]{16}$`)

// A user's own circuit, defined in the test, compiled and serialized
// with gnark, with keys from gnark's own setup: `circuits add` against a
// serve process prints its id (the same when added again), `submit
// --circuit-id --witness --await --out` proves the test's witnesses,
// gnark's verifier accepts every proof against the test's verifying key
// and the public witness the test recomputes, the manifest names the
// circuit and its constraints, and `verify --vk` accepts the directory.
func TestCircuitsAddAndSubmitAwaitThroughServe(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			f := newUserFiles(t, system)
			url := serveProcess(t, t.TempDir())
			add := []string{"circuits", "add", "--addr", url, "--ccs", f.ccs, "--pk", f.pk, "--vk", f.vk, "--pipeline", system}
			rc, stdout, stderr := prooflane(t, add...)
			id := lastLine(stdout)
			if rc != 0 || !circuitID.MatchString(id) || !strings.Contains(stderr, "added "+id+": "+system) {
				t.Fatalf("circuits add: exit %d\n%s%s", rc, stdout, stderr)
			}
			if rc, stdout, stderr := prooflane(t, add...); rc != 0 || lastLine(stdout) != id || !strings.Contains(stderr, "added before") {
				t.Errorf("circuits add again: exit %d\n%s%s", rc, stdout, stderr)
			}
			if rc, stdout, _ := prooflane(t, "circuits", "--addr", url); rc != 0 || !strings.HasPrefix(stdout, id+": "+system+" (pipeline "+system+")") || !strings.Contains(stdout, "2 public and 1 secret inputs, your own keys") {
				t.Errorf("circuits: exit %d\n%s", rc, stdout)
			}
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"submit", "--addr", url, "--circuit-id", id, "--await", "--out", out, "--vk", f.vk}
			for _, w := range f.witnesses {
				args = append(args, "--witness", w)
			}
			rc, stdout, stderr = prooflane(t, args...)
			if rc != 0 || !strings.Contains(stdout, "3 proofs, verified with "+f.vk) {
				t.Fatalf("submit --await: exit %d\n%s%s", rc, stdout, stderr)
			}
			f.checkWithGnark(t, system, out)
			b, err := os.ReadFile(filepath.Join(out, manifestFile))
			if err != nil {
				t.Fatal(err)
			}
			var m manifest
			if err := json.Unmarshal(b, &m); err != nil || m.Circuit != id || m.Constraints < 1 || m.Size != m.Constraints || m.Family != system {
				t.Errorf("manifest: %v %+v", err, m)
			}
			if rc, stdout, stderr := prooflane(t, "verify", "--vk", f.vk, out); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
				t.Errorf("verify --vk: exit %d\n%s%s", rc, stdout, stderr)
			}
		})
	}
}

// Against a serve process: a corrupt constraint system is refused by
// `circuits add` and nothing is listed; an unknown id is NotFound, naming
// it; a truncated witness is refused naming its index and nothing is
// queued. Without keys of its own, `keys preload --circuit-id` has the
// worker set up the circuit's key, `keys` lists it, and the proofs of a
// job verify against the shared key cache (await --keys).
func TestServeRefusesACorruptCircuitAnUnknownIDAndABadWitness(t *testing.T) {
	f := newUserFiles(t, "groth16")
	keysDir := t.TempDir()
	url := serveProcess(t, keysDir)
	data, err := os.ReadFile(f.ccs)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := writeFile(t, t.TempDir(), "corrupt.ccs", string(data[:len(data)*2/3]))
	rc, stdout, stderr := prooflane(t, "circuits", "add", "--addr", url, "--ccs", corrupt)
	if rc != exitFailure || stdout != "" || !strings.Contains(stderr, "prooflane circuits: circuits add: add circuit: constraint system: ") || !strings.Contains(stderr, "(invalid_argument)") {
		t.Errorf("a corrupt constraint system: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, _ := prooflane(t, "circuits", "--addr", url); rc != 0 || stdout != "" {
		t.Errorf("circuits after a refused add: exit %d\n%s", rc, stdout)
	}
	const unknown = "circuit-0123456789abcdef"
	rc, _, stderr = prooflane(t, "submit", "--addr", url, "--circuit-id", unknown, "--witness", f.witnesses[0])
	if rc != exitFailure || !strings.Contains(stderr, `circuit "`+unknown+`": no such circuit`) || !strings.Contains(stderr, "(not_found)") {
		t.Errorf("an unknown circuit id: exit %d\n%s", rc, stderr)
	}
	rc, stdout, stderr = prooflane(t, "circuits", "add", "--addr", url, "--ccs", f.ccs)
	id := lastLine(stdout)
	if rc != 0 || !strings.Contains(stderr, "keys set up by the workers") {
		t.Fatalf("circuits add: exit %d\n%s%s", rc, stdout, stderr)
	}
	good := append([]string(nil), f.witnesses...)
	w, err := os.ReadFile(good[1])
	if err != nil {
		t.Fatal(err)
	}
	truncated := writeFile(t, t.TempDir(), "truncated.bin", string(w[:len(w)-7]))
	rc, _, stderr = prooflane(t, "submit", "--addr", url, "--circuit-id", id, "--witness", good[0], "--witness", truncated)
	if rc != exitFailure || !strings.Contains(stderr, "spec: witnesses[1]: ") || !strings.Contains(stderr, "truncated or padded") {
		t.Errorf("a truncated witness: exit %d\n%s", rc, stderr)
	}
	if rc, stdout, _ := prooflane(t, "status", "--addr", url); rc != 0 || strings.Contains(stdout, "job ") {
		t.Errorf("status after refused submits: exit %d\n%s", rc, stdout)
	}
	if rc, stdout, stderr := prooflane(t, "keys", "preload", "--addr", url, "--circuit-id", id); rc != 0 || !strings.Contains(stdout, "preload "+id+": 1 workers done") {
		t.Fatalf("keys preload: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "keys", "preload", "--addr", url, "--circuit", "chain", "--size", "2^6", "--curve", "bn254"); rc != 0 || !strings.Contains(stdout, "preload groth16 chain/64 on bn254: 1 workers done") {
		t.Fatalf("keys preload --curve bn254: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, _ := prooflane(t, "keys", "--addr", url); rc != 0 || !strings.Contains(stdout, "groth16 "+id+"/") || !strings.Contains(stdout, "groth16 chain/64 on bn254 (") {
		t.Errorf("keys: exit %d\n%s", rc, stdout)
	}
	out := filepath.Join(t.TempDir(), "out")
	rc, stdout, stderr = prooflane(t, "submit", "--addr", url, "--circuit-id", id, "--witness", good[2], "--await", "--out", out, "--keys", keysDir)
	if rc != 0 || !strings.Contains(stdout, "1 proofs, verified with ") {
		t.Fatalf("submit --await --keys: exit %d\n%s%s", rc, stdout, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 1 proofs verify") {
		t.Errorf("verify --keys: exit %d\n%s%s", rc, stdout, stderr)
	}
}

// The client commands' mistakes about a user's circuit are usage errors.
func TestCircuitFlagsMistakesExitTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"circuits", "add"}, "circuits add needs --ccs FILE"},
		{[]string{"circuits", "add", "--ccs", "c", "--pk", "p"}, "--pk and --vk go together"},
		{[]string{"circuits", "rm"}, "circuits rm takes one circuit id"},
		{[]string{"circuits", "--ccs", "c"}, "--ccs, --pk, --vk, --pipeline and --curve are circuits add's"},
		{[]string{"circuits", "--curve", "bn254"}, "--ccs, --pk, --vk, --pipeline and --curve are circuits add's"},
		{[]string{"circuits", "add", "--ccs", "c", "--curve", "bn256"}, `unknown curve "bn256"`},
		{[]string{"circuits", "drop"}, `circuits takes nothing, add or rm, got "drop"`},
		{[]string{"submit", "--witness", "w"}, "--witness is for your own circuit: give its id with --circuit-id"},
		{[]string{"submit", "--circuit-id", "circuit-0123456789abcdef"}, "--circuit-id: give the witnesses to prove with --witness FILE"},
		{[]string{"submit", "--circuit-id", "circuit-0123456789abcdef", "--witness", "w", "--seed", "3"}, "--seed: a built-in circuit's"},
		{[]string{"submit", "--circuit-id", "circuit-0123456789abcdef", "--witness", "w", "--curve", "bn254"}, "--curve: a built-in circuit's"},
		{[]string{"keys", "preload", "--circuit-id", "circuit-0123456789abcdef", "--size", "64"}, "--size: a built-in circuit's"},
		{[]string{"keys", "preload", "--circuit-id", "circuit-0123456789abcdef", "--curve", "bn254"}, "--curve: a built-in circuit's"},
		{[]string{"loadtest", "--witness", "w"}, "--witness, --pk and --vk are for your own circuit"},
	} {
		rc, _, stderr := prooflane(t, c.args...)
		if rc != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", c.args, rc, c.want, stderr)
		}
	}
}

// loadtest --ccs adds the user's circuit to a service in this process and
// proves jobs of its witnesses in several lanes, every proof checked
// against the user's verifying key and each job's own witness.
func TestLoadtestProvesAUsersCircuit(t *testing.T) {
	f := newUserFiles(t, "plonk")
	args := []string{"loadtest", "--ccs", f.ccs, "--pk", f.pk, "--vk", f.vk, "--pipeline", "plonk", "--jobs", "12", "--concurrency", "4",
		"--partitions", "2", "--priorities", "critical,low,normal"}
	for _, w := range f.witnesses {
		args = append(args, "--witness", w)
	}
	rc, stdout, stderr := prooflane(t, args...)
	row := regexp.MustCompile(`(?m)^\| 12 \| 4 \| 2 \| circuit-[0-9a-f]{16} \(\d+ constraints\) ×2 \| `)
	if rc != 0 || !row.MatchString(stdout) || !strings.Contains(stderr, "loadtest: 12 jobs (24 proofs)") {
		t.Errorf("loadtest --ccs: exit %d\n%s%s", rc, stdout, stderr)
	}
}
