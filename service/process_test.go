package service

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
	"go.uber.org/goleak"

	"github.com/prooflane/prooflane/admission"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// binary is the prooflane command built once for the process tests.
var binary string

func TestMain(m *testing.M) {
	if cfg := os.Getenv(natsNodeEnv); cfg != "" {
		fmt.Fprintln(os.Stderr, runNATSNode(cfg))
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "prooflane-service-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "prooflane")
	out, err := exec.Command("go", "build", "-o", binary, "../cmd/prooflane").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build prooflane: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	for _, r := range []string{clusterReport, userLoadReport} {
		if r != "" {
			fmt.Println(r)
		}
	}
	if code == 0 {
		// Every server, worker and watch a test started is gone with it.
		http.DefaultClient.CloseIdleConnections()
		// nats.go v1.55.0's jetstream starts resetPendingAcksOnReconnect
		// with a status channel that a close right after the first async
		// publish can nil before the goroutine reads it; it then waits on
		// a nil channel for good (jetstream.go sets it to nil on cleanup;
		// seen once in a clean-clone .ci/run). Not a leak of ours.
		if err := goleak.Find(goleak.IgnoreTopFunction(
			"github.com/nats-io/nats.go/jetstream.(*jetStream).resetPendingAcksOnReconnect")); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// proc is a prooflane process of a test; its stderr is kept.
type proc struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
	url chan string // "listening on" and "--nats" URLs as they are printed
}

var urlLine = regexp.MustCompile(`(?:listening on|--nats) (\S+)`)

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	return startProcEnv(t, nil, args...)
}

// startProcEnv is startProc with variables added to the environment.
func startProcEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary, args...), url: make(chan string, 4)}
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				p.url <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			_ = p.cmd.Process.Signal(syscall.SIGCONT) // if killHolding left it stopped
			_ = p.cmd.Wait()
		}
		if t.Failed() {
			p.mu.Lock()
			t.Logf("%s:\n%s", strings.Join(args, " "), p.log.String())
			p.mu.Unlock()
		}
	})
	return p
}

// awaitURL returns the first URL the process prints that starts with
// prefix, failing the test if the process is not there first.
func (p *proc) awaitURL(t *testing.T, prefix string) string {
	t.Helper()
	for {
		select {
		case u := <-p.url:
			if strings.HasPrefix(u, prefix) {
				return u
			}
		case <-t.Context().Done():
			t.Fatalf("%s did not start", p.cmd.Args[1])
		}
	}
}

func (p *proc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

// killHolding stops p (SIGSTOP) until held, asked while p cannot move,
// names a job p runs, then kills it (SIGKILL): p dies holding those jobs
// however the timing falls, and they are returned.
func (p *proc) killHolding(t *testing.T, held func() []string) []string {
	t.Helper()
	var ids []string
	what := p.cmd.Args[1] // "worker", with its --name
	if i := slices.Index(p.cmd.Args, "--name"); i > 0 && i+1 < len(p.cmd.Args) {
		what += " " + p.cmd.Args[i+1]
	}
	waitFor(t, what+" stopped while it holds a job", func() bool {
		if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		if ids = held(); len(ids) == 0 {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
		}
		return len(ids) > 0
	})
	p.kill(t)
	return ids
}

// runningOn lists the jobs whose records say worker runs them now (taken,
// waiting for memory or proving).
func runningOn(t *testing.T, cl prooflanev1connect.ProverServiceClient, worker string) []string {
	t.Helper()
	var ids []string
	req := &pb.ListRequest{Limit: MaxListJobs}
	for {
		list, err := cl.List(context.Background(), connect.NewRequest(req))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range list.Msg.Jobs {
			if j.Worker == worker && (j.State == pb.JobState_JOB_STATE_ADMITTING || j.State == pb.JobState_JOB_STATE_RUNNING) {
				ids = append(ids, j.JobId)
			}
		}
		if list.Msg.NextPageToken == "" {
			return ids
		}
		req.PageToken = list.Msg.NextPageToken
	}
}

// freePort returns a loopback port free now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// serveProc starts `prooflane serve --workers 0` on data with its NATS on
// natsPort and returns it with a client.
func serveProc(t *testing.T, data string, natsPort int) (*proc, prooflanev1connect.ProverServiceClient) {
	t.Helper()
	p := startProc(t, "serve", "--workers", "0", "--addr", "127.0.0.1:0", "--data", data,
		"--nats-listen", "127.0.0.1:"+strconv.Itoa(natsPort), "--ack-wait", "2s")
	return p, prooflanev1connect.NewProverServiceClient(http.DefaultClient, p.awaitURL(t, "http"))
}

// awaitJobOf returns a job's final message from cl, failing the test on
// an error.
func awaitJobOf(t *testing.T, cl prooflanev1connect.ProverServiceClient, id string) *pb.AwaitResponse {
	t.Helper()
	last, err := awaitJob(cl, id)
	if err != nil {
		t.Fatalf("job %s: %v", id, err)
	}
	return last
}

// awaitDoneOnce awaits job id, checks its proofs with gnark's verifier
// against spec's key, and awaits it again: a job proved twice would answer
// with other proofs the second time.
func awaitDoneOnce(t *testing.T, cl prooflanev1connect.ProverServiceClient, keysDir string, spec *pb.JobSpec, id string) *pb.AwaitResponse {
	t.Helper()
	res := awaitJobOf(t, cl, id)
	verifyProofs(t, keysDir, spec, res.Proofs)
	again := awaitJobOf(t, cl, id)
	for i := range res.Proofs {
		if !bytes.Equal(res.Proofs[i].Proof, again.Proofs[i].Proof) {
			t.Errorf("job %s partition %d: two different proofs", id, i)
		}
	}
	return res
}

// submitJobs submits n test jobs, seeded first, first+1 and on, and
// returns their ids in that order and the spec of each.
func submitJobs(t *testing.T, cl prooflanev1connect.ProverServiceClient, first uint64, n int) ([]string, map[string]*pb.JobSpec) {
	t.Helper()
	var ids []string
	specs := map[string]*pb.JobSpec{}
	for i := range n {
		spec := testSpec(first + uint64(i))
		resp, err := cl.Submit(context.Background(), connect.NewRequest(&pb.SubmitRequest{Spec: spec}))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.Msg.JobId)
		specs[resp.Msg.JobId] = spec
	}
	return ids, specs
}

func TestFiftyJobsCompleteWhenAWorkerIsKilledMidJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir, keysDir := t.TempDir(), t.TempDir()
	natsPort := freePort(t)
	_, cl := serveProc(t, dir, natsPort)
	nats := "nats://127.0.0.1:" + strconv.Itoa(natsPort)
	worker := func(name string) *proc {
		return startProc(t, "worker", "--nats", nats, "--data", dir, "--keys", keysDir, "--workers", "2", "--name", name, "--ack-wait", "2s")
	}
	ids, specs := submitJobs(t, cl, 1000, 50)
	victim := worker("victim")
	worker("survivor")
	// Kill the victim while it runs a job: that job must go to the
	// survivor when the victim's heartbeats stop.
	held := victim.killHolding(t, func() []string { return runningOn(t, cl, "victim") })
	for _, id := range ids {
		awaitDoneOnce(t, cl, keysDir, specs[id], id)
	}
	t.Logf("%d jobs held by the victim when it died, all done", len(held))
}

func TestServeKilledAndRestartedLosesNoAcceptedJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir, keysDir := t.TempDir(), t.TempDir()
	natsPort := freePort(t)
	serve, cl := serveProc(t, dir, natsPort)
	_, specs := submitJobs(t, cl, 2000, 10)
	serve.kill(t)
	_, cl = serveProc(t, dir, natsPort)
	startProc(t, "worker", "--nats", "nats://127.0.0.1:"+strconv.Itoa(natsPort), "--data", dir, "--keys", keysDir, "--workers", "2")
	for id, spec := range specs {
		res := awaitJobOf(t, cl, id)
		verifyProofs(t, keysDir, spec, res.Proofs)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "prooflane test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// serve over TLS with a token: the CLI client with the CA and the token
// gets verified proofs; a wrong token is refused, naming the cause.
func TestServeOverTLSWithATokenServesOnlyTheTokensHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir, keysDir := t.TempDir(), t.TempDir()
	cert, key := selfSigned(t, dir)
	tokFile, badFile := filepath.Join(dir, "token"), filepath.Join(dir, "bad")
	if err := os.WriteFile(tokFile, []byte("0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(badFile, []byte("0123456789abcdeg\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--keys", keysDir,
		"--nats-listen", "none", "--tls-cert", cert, "--tls-key", key, "--token-file", tokFile)
	url := p.awaitURL(t, "https://")
	out := filepath.Join(dir, "proofs")
	client := func(token string, args ...string) (string, error) {
		cmd := exec.Command(binary, append(args, "--addr", url, "--ca", cert, "--token-file", token)...)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if msg, err := client(tokFile, "submit", "--circuit", testCircuit, "--size", "64", "--partitions", "2", "--seed", "9", "--await", "--out", out, "--keys", keysDir); err != nil {
		t.Fatalf("submit over TLS: %v\n%s", err, msg)
	}
	var proofs []*pb.Proof
	for i := range 2 {
		proof, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("proof-%d.bin", i)))
		if err != nil {
			t.Fatal(err)
		}
		pub, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("public-%d.bin", i)))
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, &pb.Proof{Partition: uint32(i), Proof: proof, PublicWitness: pub})
	}
	verifyProofs(t, keysDir, &pb.JobSpec{Circuit: testCircuit, Size: 64, Partitions: 2, Seed: 9}, proofs)
	msg, err := client(badFile, "status")
	if err == nil || !strings.Contains(msg, "prooflane status: status: missing or wrong bearer token") {
		t.Errorf("wrong token: %v\n%s", err, msg)
	}
	// Without the CA, the client refuses the server's certificate.
	cmd := exec.Command(binary, "status", "--addr", url, "--token-file", tokFile)
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "certificate") {
		t.Errorf("status without --ca: %v\n%s", err, b)
	}
}

// serve --nats joins a NATS server it does not own (here one this test
// runs, its one user the secret's nkey): the queue's streams are made
// there, and its worker proves.
func TestServeOnAnExternalNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	secret, secretFile := secretFileOf(t)
	ns := natsWithSecret(t, secret)
	keysDir := t.TempDir()
	p := startProc(t, "serve", "--addr", "127.0.0.1:0", "--nats", ns.ClientURL(), "--nats-secret", secretFile, "--keys", keysDir, "--data", t.TempDir())
	cl := prooflanev1connect.NewProverServiceClient(http.DefaultClient, p.awaitURL(t, "http"))
	spec := testSpec(77)
	resp, err := cl.Submit(context.Background(), connect.NewRequest(&pb.SubmitRequest{Spec: spec}))
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, keysDir, spec, awaitJobOf(t, cl, resp.Msg.JobId).Proofs)
	// The streams are the external server's.
	nc, err := Connect(ns.ClientURL(), nil, secret, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	st, err := openStore(context.Background(), nc, QueueConfig{}, secret)
	if err != nil {
		t.Fatal(err)
	}
	if r, _, err := st.get(context.Background(), resp.Msg.JobId); err != nil || r.State != pb.JobState_JOB_STATE_DONE {
		t.Errorf("job record on the external server: %v, %v", r, err)
	}
}

// secretFileOf makes a secret and its file (mode 0600) in a directory of
// the test's.
func secretFileOf(t *testing.T) (Secret, string) {
	t.Helper()
	dir := t.TempDir()
	secret, path, err := LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	return secret, path
}

// natsWithSecret starts a NATS server of the test's own, on loopback,
// that wants secret's nkey user; it is shut down when the test ends.
func natsWithSecret(t *testing.T, secret Secret) *server.Server {
	t.Helper()
	ns, err := StartNATS(NATSConfig{DataDir: t.TempDir(), Host: "127.0.0.1", Port: 0, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

// A NATS server that refuses the secret is an error at once, not a hang,
// naming the flag the secret came from.
func TestWrongQueueSecretIsAnErrorNotAHang(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	secret, _ := secretFileOf(t)
	_, wrong := secretFileOf(t)
	ns := natsWithSecret(t, secret)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "127.0.0.1:0", "--nats", ns.ClientURL(), "--nats-secret", wrong, "--data", t.TempDir()}, "the server refused the queue's secret, --nats-secret"},
		{[]string{"worker", "--nats", ns.ClientURL(), "--nats-secret", wrong}, "the queue refused the secret from --nats-secret (" + wrong + "); give serve's with --nats-secret FILE"},
		{[]string{"worker", "--nats", ns.ClientURL(), "--data", filepath.Dir(wrong)}, "the queue refused the secret from --data (" + wrong + ")"},
	} {
		out, err := exec.Command(binary, c.args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(strings.ToLower(string(out)), "authorization violation") || !strings.Contains(string(out), c.want) {
			t.Errorf("%s with a wrong secret: %v\n%s\nwant exit 1, authorization violation and %q", c.args[0], err, out, c.want)
		}
	}
}

// rss is a process's resident memory (VmRSS), in bytes.
func rss(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// serve with its own worker (its budget the machine's memory, the
// default) refuses a Submit and a Preload at 2^28 at once, naming the
// estimate and the budget; neither grows the process nor starts a setup.
func TestServeRefusesAHugeSubmitAndPreloadWithoutGrowing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	keysDir := t.TempDir()
	// The machine's memory, as far as serve's worker is told: the
	// refusals do not depend on this machine's.
	p := startProcEnv(t, []string{admission.HostEnv + "=16GiB"}, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", keysDir, "--nats-listen", "none")
	cl := prooflanev1connect.NewProverServiceClient(http.DefaultClient, p.awaitURL(t, "http"))
	ctx := context.Background()
	waitFor(t, "serve's worker", func() bool {
		h, err := cl.Health(ctx, connect.NewRequest(&pb.HealthRequest{}))
		return err == nil && h.Msg.Workers == 1
	})
	before := rss(t, p.cmd.Process.Pid)
	refusedAtOnce(t, "submit", func() error {
		_, err := cl.Submit(ctx, connect.NewRequest(&pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: hugeSize, Partitions: 1}}))
		return err
	}, "spec: groth16 chain/268435456 with 1 partitions needs about ", " GiB of host memory, more than the 16.0 GiB of worker ")
	refusedAtOnce(t, "preload", func() error {
		_, err := cl.Preload(ctx, connect.NewRequest(&pb.KeyRequest{Pipeline: "groth16", Size: hugeSize}))
		return err
	}, "preload: groth16 chain/268435456 needs about ", " GiB of host memory, more than the 16.0 GiB of worker ")
	if after := rss(t, p.cmd.Process.Pid); after > before+64<<20 {
		t.Errorf("serve grew from %d to %d bytes refusing them", before, after)
	}
	if files, _ := filepath.Glob(filepath.Join(keysDir, "*")); len(files) != 0 {
		t.Errorf("a refused request left key files: %v", files)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.Contains(p.log.String(), "setup") {
		t.Errorf("serve started a setup:\n%s", p.log.String())
	}
}

// serve's NATS takes no client without the secret serve made in its
// --data; a worker without it is told which flag to give.
func TestServesQueueRefusesClientsWithoutItsSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	natsPort := freePort(t)
	serveProc(t, dir, natsPort)
	url := "nats://127.0.0.1:" + strconv.Itoa(natsPort)
	if nc, err := natsgo.Connect(url); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization violation") {
		if nc != nil {
			nc.Close()
		}
		t.Errorf("a client without credentials: %v, want an authorization violation", err)
	}
	secret, err := ReadSecret(filepath.Join(dir, SecretFile))
	if err != nil {
		t.Fatalf("serve's secret: %v", err)
	}
	nc, err := Connect(url, nil, secret, "test")
	if err != nil {
		t.Fatalf("a client with serve's secret: %v", err)
	}
	nc.Close()
	out, err := exec.Command(binary, "worker", "--nats", url).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "the queue's secret is needed: --nats-secret FILE") {
		t.Errorf("a worker without the secret: %v\n%s", err, out)
	}
}

// A result in the queue that no worker of it stored (its MAC missing or
// wrong) is refused: `prooflane await --out` exits 1 naming the job, and
// writes nothing.
func TestAwaitOutRefusesAForgedResultAndWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	natsPort := freePort(t)
	p := startProc(t, "serve", "--workers", "0", "--addr", "127.0.0.1:0", "--data", dir, "--nats-listen", "127.0.0.1:"+strconv.Itoa(natsPort))
	api := p.awaitURL(t, "http")
	cl := prooflanev1connect.NewProverServiceClient(http.DefaultClient, api)
	secret, err := ReadSecret(filepath.Join(dir, SecretFile))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := Connect("nats://127.0.0.1:"+strconv.Itoa(natsPort), nil, secret, "intruder")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	st, err := openStore(context.Background(), nc, QueueConfig{}, secret)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewSecret()
	for name, mac := range map[string]func(id, specHash string) []byte{
		"missing": func(string, string) []byte { return nil },
		"wrong": func(id, specHash string) []byte {
			return other.resultMAC(id, "intruder", specHash, &Output{Proofs: zeroProofs()})
		},
	} {
		ids, _ := submitJobs(t, cl, 1, 1)
		id := ids[0]
		r, err := st.update(context.Background(), id, func(r *record) bool {
			r.State, r.Worker = pb.JobState_JOB_STATE_DONE, "intruder"
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(result{Worker: "intruder", Proofs: zeroProofs(), MAC: mac(id, r.SpecHash)})
		if _, err := st.results.Put(context.Background(), id, b); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "proofs")
		cmd := exec.Command(binary, "await", "--addr", api, "--out", out, id)
		msg, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(msg), `job "`+id+`": the result stored by "intruder" fails its integrity check`) {
			t.Errorf("%s MAC: await %v\n%s\nwant exit 1 naming the job", name, err, msg)
		}
		if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s MAC: --out %s: %v, want nothing written", name, out, err)
		}
	}
}

// `prooflane status` lists the newest jobs first and prints the token of
// the older ones' page.
func TestStatusListsTheNewestJobsFirstAndPages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	p := startProc(t, "serve", "--workers", "0", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--nats-listen", "none")
	api := p.awaitURL(t, "http")
	ids, _ := submitJobs(t, prooflanev1connect.NewProverServiceClient(http.DefaultClient, api), 1, 3)
	status := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(binary, append([]string{"status", "--addr", api, "--limit", "2"}, args...)...).Output()
		if err != nil {
			t.Fatalf("status %v: %v", args, err)
		}
		return string(out)
	}
	jobLines := regexp.MustCompile(`(?m)^job (\S+) `)
	listed := func(out string) (got []string) {
		for _, m := range jobLines.FindAllStringSubmatch(out, -1) {
			got = append(got, m[1])
		}
		return got
	}
	first := status()
	m := regexp.MustCompile(`(?m)^older jobs: --page-token (\d+)$`).FindStringSubmatch(first)
	if got := listed(first); len(got) != 2 || got[0] != ids[2] || got[1] != ids[1] || m == nil {
		t.Fatalf("status --limit 2:\n%s\nwant %s and %s, then a page token", first, ids[2], ids[1])
	}
	second := status("--page-token", m[1])
	if got := listed(second); len(got) != 1 || got[0] != ids[0] || strings.Contains(second, "older jobs") {
		t.Errorf("status --page-token %s:\n%s\nwant %s alone", m[1], second, ids[0])
	}
}
