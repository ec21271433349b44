package service

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// Test jobs: the chain circuit at 2^6 constraints, one partition each.
const (
	testCircuit = "chain"
	testSize    = 1 << 6
)

// harness is a service in this process: embedded NATS (memory queue), the
// API on a loopback httptest server, and a client.
type harness struct {
	t      *testing.T
	keys   string
	srv    *Server
	client prooflanev1connect.ProverServiceClient
	url    string
	start  func(cfg WorkerConfig) *Worker
	// ns is the embedded NATS; secret the queue's.
	ns     *server.Server
	secret Secret
	// startStoppable is start with a stop that ends the worker's Run
	// (its jobs handed back) and waits for it.
	startStoppable func(cfg WorkerConfig) (stop func())
}

func newHarness(t *testing.T, token string) *harness { return newHarnessWith(t, token, nil) }

func newHarnessWith(t *testing.T, token string, m *Metrics) *harness {
	t.Helper()
	secret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := StartNATS(NATSConfig{DataDir: t.TempDir(), Port: -1, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	q := QueueConfig{Memory: true, AckWait: 5 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	nc, err := Connect("", ns, secret, "test-server")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	srv, err := NewServer(ctx, nc, ServerConfig{Token: token, Secret: secret, Queue: q, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	h := &harness{t: t, keys: t.TempDir(), url: hs.URL, srv: srv, ns: ns, secret: secret}
	h.client = prooflanev1connect.NewProverServiceClient(hs.Client(), hs.URL)
	h.start = func(cfg WorkerConfig) *Worker {
		w, _ := h.startIn(ctx, &wg, ns, q, m, cfg)
		return w
	}
	h.startStoppable = func(cfg WorkerConfig) func() {
		wctx, cancel := context.WithCancel(ctx)
		_, done := h.startIn(wctx, &wg, ns, q, m, cfg)
		return func() { cancel(); <-done }
	}
	return h
}

// startIn starts a worker that runs until ctx is done; done is closed
// when its Run has returned.
func (h *harness) startIn(ctx context.Context, wg *sync.WaitGroup, ns *server.Server, q QueueConfig, m *Metrics, cfg WorkerConfig) (*Worker, chan struct{}) {
	t := h.t
	wnc, err := Connect("", ns, h.secret, "test-worker")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Runner == nil {
		be, err := cpu.New(1)
		if err != nil {
			t.Fatal(err)
		}
		r := &EngineRunner{KeysDir: h.keys, Backend: be, Metrics: m}
		m.ObserveResident(r.ResidentBytes)
		cfg.Runner, cfg.Metrics = r, m
		t.Cleanup(func() { r.Close(); be.Close() })
	}
	cfg.Conn, cfg.Queue, cfg.Secret = wnc, q, h.secret
	w, err := NewWorker(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		defer wnc.Close()
		if err := w.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	return w, done
}

func testSpec(seed uint64) *pb.JobSpec {
	return &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 1, Seed: seed}
}

func (h *harness) submit(spec *pb.JobSpec, prio pb.Priority) string {
	h.t.Helper()
	resp, err := h.client.Submit(context.Background(), connect.NewRequest(&pb.SubmitRequest{Spec: spec, Priority: prio}))
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.Msg.JobId
}

func (h *harness) status(id string) *pb.JobStatus {
	h.t.Helper()
	resp, err := h.client.Status(context.Background(), connect.NewRequest(&pb.StatusRequest{JobId: id}))
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.Msg.Status
}

// await returns a job's final message, or its error.
func (h *harness) await(id string) (*pb.AwaitResponse, error) { return awaitJob(h.client, id) }

// awaitVerified awaits a job of spec and checks its proofs.
func (h *harness) awaitVerified(id string, spec *pb.JobSpec) {
	h.t.Helper()
	res, err := h.await(id)
	if err != nil {
		h.t.Fatalf("job %s: %v", id, err)
	}
	verifyProofs(h.t, h.keys, spec, res.Proofs)
}

// awaitJob returns a job's final message from cl, or its error.
func awaitJob(cl prooflanev1connect.ProverServiceClient, id string) (*pb.AwaitResponse, error) {
	stream, err := cl.Await(context.Background(), connect.NewRequest(&pb.AwaitRequest{JobId: id}))
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	var last *pb.AwaitResponse
	for stream.Receive() {
		last = stream.Msg()
	}
	return last, stream.Err()
}

// hostEstimate is the host memory estimate of a test job.
func (h *harness) hostEstimate() uint64 {
	h.t.Helper()
	est, err := EstimateHost(Spec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 1}, h.keys)
	if err != nil {
		h.t.Fatal(err)
	}
	return est
}

// engineRunner returns a runner of its own on a one-device CPU backend,
// with the harness's key cache, closed when the test ends.
func (h *harness) engineRunner() *EngineRunner {
	be, err := cpu.New(1)
	if err != nil {
		h.t.Fatal(err)
	}
	r := &EngineRunner{KeysDir: h.keys, Backend: be}
	h.t.Cleanup(func() { r.Close(); be.Close() })
	return r
}

// waitFor polls until cond holds; it gives up after two minutes (a guard
// against a hang, not a measure of speed).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	giveUp := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(giveUp) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// verifyProofs checks a job's proofs with gnark's verifier against the
// key in the cache and public witnesses made here from the seed.
func verifyProofs(t *testing.T, keysDir string, spec *pb.JobSpec, proofs []*pb.Proof) {
	t.Helper()
	if len(proofs) != int(spec.Partitions) {
		t.Fatalf("%d proofs, want %d", len(proofs), spec.Partitions)
	}
	vk, err := keys.Cache{Dir: keysDir}.LoadVK(spec.Circuit, int(spec.Size))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := (&keys.Set{Circuit: spec.Circuit, Size: int(spec.Size)}).Witnesses(int(spec.Partitions), spec.Seed, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range proofs {
		var proof g16.Proof
		if _, err := proof.ReadFrom(bytes.NewReader(p.Proof)); err != nil {
			t.Fatalf("partition %d: %v", p.Partition, err)
		}
		pub, err := ws[p.Partition].Public()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := pub.MarshalBinary()
		if !bytes.Equal(want, p.PublicWitness) {
			t.Errorf("partition %d: public witness is not the seed's", p.Partition)
		}
		if err := groth16.VerifyProof(vk, &proof, pub); err != nil {
			t.Errorf("partition %d: %v", p.Partition, err)
		}
	}
}

// gatedRunner holds each job before it runs until the test opens the gate.
type gatedRunner struct {
	Runner
	gate chan struct{}
}

// gated returns r behind a closed gate.
func gated(r Runner) *gatedRunner { return &gatedRunner{Runner: r, gate: make(chan struct{})} }

func (g *gatedRunner) Run(ctx context.Context, spec Spec, onEvent func(runtime.Event)) (*Output, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Runner.Run(ctx, spec, onEvent)
}

func TestSubmitAwaitReturnsVerifiedProofsAndIdempotencyKeyNamesOneJob(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	spec := &pb.JobSpec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 7}
	req := &pb.SubmitRequest{Spec: spec, IdempotencyKey: "req-1"}
	first, err := h.client.Submit(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.client.Submit(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if again.Msg.JobId != first.Msg.JobId || !again.Msg.Duplicate {
		t.Fatalf("resubmit: %v, want job %s marked duplicate", again.Msg, first.Msg.JobId)
	}
	res, err := h.await(first.Msg.JobId)
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, h.keys, spec, res.Proofs)
	res2, err := h.await(first.Msg.JobId)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Proofs {
		if !bytes.Equal(res.Proofs[i].Proof, res2.Proofs[i].Proof) {
			t.Errorf("partition %d: a second await returned another proof", i)
		}
	}
	other := &pb.SubmitRequest{Spec: testSpec(8), IdempotencyKey: "req-1"}
	_, err = h.client.Submit(context.Background(), connect.NewRequest(other))
	if connect.CodeOf(err) != connect.CodeAlreadyExists || !strings.Contains(err.Error(), `idempotency_key "req-1" names job`) {
		t.Errorf("same key, other spec: %v", err)
	}
}

func TestCriticalJobStartsBeforeEveryQueuedNormalJob(t *testing.T) {
	h := newHarness(t, "")
	var normal []string
	for i := range 20 {
		normal = append(normal, h.submit(testSpec(uint64(100+i)), pb.Priority_PRIORITY_NORMAL))
	}
	crit := h.submit(testSpec(99), pb.Priority_PRIORITY_CRITICAL)
	// The worker comes up with 21 jobs queued: it takes the lanes in order.
	h.start(WorkerConfig{Name: "w1", Slots: 1})
	res, err := h.await(crit)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.StartSeq != 1 {
		t.Errorf("critical job started %d-th, want first", res.Status.StartSeq)
	}
	verifyProofs(t, h.keys, testSpec(99), res.Proofs)
	for _, id := range normal {
		if _, err := h.await(id); err != nil {
			t.Fatal(err)
		}
		if s := h.status(id); s.StartSeq <= 1 {
			t.Errorf("normal job %s started %d-th, before the critical one", id, s.StartSeq)
		}
	}
}

func TestMemoryBudgetOfTwoJobsHoldsTheThirdUntilOneEnds(t *testing.T) {
	h := newHarness(t, "")
	est := h.hostEstimate()
	gr := gated(h.engineRunner())
	h.start(WorkerConfig{Name: "w1", Slots: 3, Budget: 2*est + est/2, Runner: gr})
	ids := []string{h.submit(testSpec(1), 0), h.submit(testSpec(2), 0), h.submit(testSpec(3), 0)}
	count := func(state pb.JobState) int {
		n := 0
		for _, id := range ids {
			if h.status(id).State == state {
				n++
			}
		}
		return n
	}
	waitFor(t, "two jobs running and one admitting", func() bool {
		return count(pb.JobState_JOB_STATE_RUNNING) == 2 && count(pb.JobState_JOB_STATE_ADMITTING) == 1
	})
	close(gr.gate)
	for i, id := range ids {
		h.awaitVerified(id, testSpec(uint64(i+1)))
	}
}

func TestBadRequestsGetClearErrorsAndChangeNothing(t *testing.T) {
	h := newHarness(t, "")
	ctx := context.Background()
	for _, c := range []struct {
		name string
		req  *pb.SubmitRequest
		want string
	}{
		{"no spec", &pb.SubmitRequest{}, "spec: missing"},
		{"unknown pipeline", &pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth17", Circuit: "chain", Size: 64}}, `spec: no embedded pipeline "groth17"`},
		{"bad yaml", &pb.SubmitRequest{Spec: &pb.JobSpec{PipelineYaml: "pipeline: x\nstages:\n  a: {tpye: groth16.synthesize}\n", Circuit: "chain", Size: 64}}, `pipeline_yaml:3:`},
		{"unknown circuit", &pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: "chian", Size: 64}}, `spec: unknown circuit "chian" (did you mean "chain"?)`},
		{"size", &pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: "chain", Size: 1 << 40}}, "spec: size 1099511627776: above the limit of 2^28"},
		{"small", &pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: "chain", Size: 1}}, `spec: circuit "chain": size 1 below the minimum 2`},
		{"partitions", &pb.SubmitRequest{Spec: &pb.JobSpec{Pipeline: "groth16", Circuit: "chain", Size: 64, Partitions: 5000}}, "spec: partitions 5000: above the limit of 1024"},
		{"priority", &pb.SubmitRequest{Spec: testSpec(1), Priority: 9}, "priority 9: want"},
		{"deadline", &pb.SubmitRequest{Spec: testSpec(1), DeadlineUnixMs: 1}, "deadline_unix_ms 1: already passed"},
	} {
		_, err := h.client.Submit(ctx, connect.NewRequest(c.req))
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid_argument %q", c.name, err, c.want)
		}
	}
	big := &pb.SubmitRequest{Spec: &pb.JobSpec{PipelineYaml: strings.Repeat("#", 3<<20), Circuit: "chain", Size: 64}}
	if _, err := h.client.Submit(ctx, connect.NewRequest(big)); connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Errorf("oversized request: %v, want resource_exhausted", err)
	}
	// Malformed bytes straight to the handler.
	resp, err := http.Post(h.url+prooflanev1connect.ProverServiceSubmitProcedure, "application/proto", strings.NewReader("\xff\xff\xff"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed request: HTTP %d, want 400", resp.StatusCode)
	}
	if _, err := h.client.Status(ctx, connect.NewRequest(&pb.StatusRequest{JobId: "../etc"})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("bad job id: %v", err)
	}
	if _, err := h.client.Status(ctx, connect.NewRequest(&pb.StatusRequest{JobId: "j000000000000000000000000"})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("unknown job: %v", err)
	}
	// None of them queued anything.
	list, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Msg.Jobs) != 0 {
		t.Errorf("bad requests left %d jobs", len(list.Msg.Jobs))
	}
	// A cancelled job awaited (no worker runs: it stays queued until then).
	id := h.submit(testSpec(1), 0)
	if _, err := h.client.Cancel(ctx, connect.NewRequest(&pb.CancelRequest{JobId: id})); err != nil {
		t.Fatal(err)
	}
	_, err = h.await(id)
	if connect.CodeOf(err) != connect.CodeCanceled || !strings.Contains(err.Error(), "job \""+id+"\" was cancelled") {
		t.Errorf("cancelled job awaited: %v", err)
	}
}

func TestTokenIsRequiredWhenSet(t *testing.T) {
	h := newHarness(t, "s3cret")
	_, err := h.client.Health(context.Background(), connect.NewRequest(&pb.HealthRequest{}))
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("no token: %v", err)
	}
	for tok, ok := range map[string]bool{"wrong": false, "s3cret": true} {
		req := connect.NewRequest(&pb.HealthRequest{})
		req.Header().Set("Authorization", "Bearer "+tok)
		_, err := h.client.Health(context.Background(), req)
		if (err == nil) != ok {
			t.Errorf("token %q: %v", tok, err)
		}
	}
	resp, err := http.Get(h.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/healthz without a token: HTTP %d", resp.StatusCode)
	}
}

// Cancelling a running job stops it and frees its slot: the job after it
// runs on the same one-slot worker.
func TestCancelStopsARunningJobAndFreesItsSlot(t *testing.T) {
	h := newHarness(t, "")
	gr := gated(h.engineRunner())
	h.start(WorkerConfig{Name: "w1", Slots: 1, Runner: gr})
	first := h.submit(testSpec(1), 0)
	waitFor(t, "the first job running", func() bool { return h.status(first).State == pb.JobState_JOB_STATE_RUNNING })
	second := h.submit(testSpec(2), 0)
	if _, err := h.client.Cancel(context.Background(), connect.NewRequest(&pb.CancelRequest{JobId: first})); err != nil {
		t.Fatal(err)
	}
	if _, err := h.await(first); connect.CodeOf(err) != connect.CodeCanceled {
		t.Errorf("cancelled running job: %v", err)
	}
	close(gr.gate)
	h.awaitVerified(second, testSpec(2))
	if s := h.status(first); s.State != pb.JobState_JOB_STATE_CANCELLED {
		t.Errorf("first job %v after the second ran, want cancelled", s.State)
	}
	_, err := h.client.Cancel(context.Background(), connect.NewRequest(&pb.CancelRequest{JobId: second}))
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), "already ended: done") {
		t.Errorf("cancel of a done job: %v", err)
	}
}

// A job whose deadline passed while it was queued fails without running.
func TestDeadlinePassedInTheQueueFailsTheJob(t *testing.T) {
	h := newHarness(t, "")
	deadline := time.Now().Add(300 * time.Millisecond)
	resp, err := h.client.Submit(context.Background(), connect.NewRequest(&pb.SubmitRequest{Spec: testSpec(1), DeadlineUnixMs: deadline.UnixMilli()}))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deadline", func() bool { return time.Now().After(deadline.Add(10 * time.Millisecond)) })
	h.start(WorkerConfig{Name: "w1"})
	_, err = h.await(resp.Msg.JobId)
	if connect.CodeOf(err) != connect.CodeAborted || !strings.Contains(err.Error(), "passed before it started") {
		t.Errorf("await: %v", err)
	}
}

func TestPreloadAndEvictReachEveryWorker(t *testing.T) {
	h := newHarness(t, "")
	ctx := context.Background()
	req := &pb.KeyRequest{Pipeline: "groth16", Circuit: testCircuit, Size: testSize}
	if _, err := h.client.Preload(ctx, connect.NewRequest(req)); connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), "no worker is running") {
		t.Errorf("preload without workers: %v", err)
	}
	h.start(WorkerConfig{Name: "w1"})
	h.start(WorkerConfig{Name: "w2"})
	workers := func() []*pb.WorkerInfo {
		resp, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Msg.Workers
	}
	waitFor(t, "two workers reporting", func() bool { return len(workers()) == 2 })
	resp, err := h.client.Preload(ctx, connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Msg.Workers) != 2 || len(resp.Msg.Errors) != 0 {
		t.Fatalf("preload: %v", resp.Msg)
	}
	for _, w := range workers() {
		if len(w.Keys) != 1 || w.Keys[0].Circuit != testCircuit || w.Keys[0].Size != testSize || w.Keys[0].Bytes == 0 {
			t.Errorf("worker %s keys %v after preload", w.Name, w.Keys)
		}
	}
	if resp, err = h.client.Evict(ctx, connect.NewRequest(req)); err != nil || len(resp.Msg.Workers) != 2 {
		t.Fatalf("evict: %v %v", resp, err)
	}
	for _, w := range workers() {
		if len(w.Keys) != 0 {
			t.Errorf("worker %s keys %v after evict", w.Name, w.Keys)
		}
	}
	if resp, err = h.client.Evict(ctx, connect.NewRequest(req)); err != nil || len(resp.Msg.Errors) != 2 || !strings.Contains(resp.Msg.Errors[0], "not loaded") {
		t.Errorf("second evict: %v %v", resp, err)
	}
}

// What is too large for a message goes through the object store: a
// pipeline's YAML on the way in, the proofs on the way out.
func TestLargeInputsAndProofsGoThroughTheObjectStore(t *testing.T) {
	defer func(old int) { inlineLimit = old }(inlineLimit)
	inlineLimit = 1 << 10
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	_, src, err := pipelines.Open("groth16")
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(src) + "\n#" + strings.Repeat(" padding", 1<<10) + "\n"
	spec := &pb.JobSpec{PipelineYaml: yaml, Circuit: testCircuit, Size: testSize, Partitions: 4, Seed: 11}
	id := h.submit(spec, 0)
	if s := h.status(id); s.Spec.PipelineYaml != "" {
		t.Errorf("a large pipeline_yaml is kept in the record (%d bytes)", len(s.Spec.PipelineYaml))
	}
	res, err := h.await(id)
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, h.keys, spec, res.Proofs)
	e, err := h.srv.st.results.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(e.Value()), `"object":"`+id+`.w1.`) || len(e.Value()) > inlineLimit {
		t.Errorf("result record %s: want a reference to the object store", e.Value())
	}
}

// A CRITICAL job does not wait behind a NORMAL one that is itself waiting
// for memory: the worker hands the NORMAL job back to the queue, and the
// CRITICAL one waits only for the job running.
func TestCriticalJobOvertakesALowerJobWaitingForMemory(t *testing.T) {
	h := newHarness(t, "")
	est := h.hostEstimate()
	gr := gated(h.engineRunner())
	h.start(WorkerConfig{Name: "w1", Slots: 2, Budget: est + est/2, Runner: gr})
	running := h.submit(testSpec(1), pb.Priority_PRIORITY_NORMAL)
	waitFor(t, "the first job running", func() bool { return h.status(running).State == pb.JobState_JOB_STATE_RUNNING })
	waiting := h.submit(testSpec(2), pb.Priority_PRIORITY_NORMAL)
	waitFor(t, "the second job admitting", func() bool { return h.status(waiting).State == pb.JobState_JOB_STATE_ADMITTING })
	crit := h.submit(testSpec(3), pb.Priority_PRIORITY_CRITICAL)
	waitFor(t, "the critical job admitting", func() bool { return h.status(crit).State == pb.JobState_JOB_STATE_ADMITTING })
	close(gr.gate)
	for i, id := range []string{running, waiting, crit} {
		h.awaitVerified(id, testSpec(uint64(i+1)))
	}
	if c, n := h.status(crit), h.status(waiting); c.StartSeq != 2 || n.StartSeq != 3 || n.Deliveries < 2 {
		t.Errorf("critical started %d-th, the waiting normal job %d-th after %d deliveries; want 2, 3 and at least 2", c.StartSeq, n.StartSeq, n.Deliveries)
	}
}

// A device budget that fits one job's device estimate runs one job at a
// time: the second waits in ADMITTING, then runs.
func TestDeviceBudgetHoldsAJobUntilTheDeviceHasRoom(t *testing.T) {
	h := newHarness(t, "")
	inner := h.engineRunner()
	est, err := inner.Estimate(Spec{Pipeline: "groth16", Circuit: testCircuit, Size: testSize, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if est.Device == 0 {
		t.Fatal("no device estimate for a groth16 job")
	}
	gr := gated(inner)
	h.start(WorkerConfig{Name: "w1", Slots: 2, DeviceBudget: est.Device + est.Device/2, Runner: gr})
	first := h.submit(testSpec(1), 0)
	waitFor(t, "the first job running", func() bool { return h.status(first).State == pb.JobState_JOB_STATE_RUNNING })
	second := h.submit(testSpec(2), 0)
	waitFor(t, "the second job admitting", func() bool { return h.status(second).State == pb.JobState_JOB_STATE_ADMITTING })
	if s := h.status(second); s.DeviceEstimateBytes != est.Device {
		t.Errorf("device estimate %d in the record, want %d", s.DeviceEstimateBytes, est.Device)
	}
	close(gr.gate)
	for i, id := range []string{first, second} {
		h.awaitVerified(id, testSpec(uint64(i+1)))
	}
	// A job whose estimate is above the whole device budget fails at once.
	h2 := newHarness(t, "")
	h2.start(WorkerConfig{Name: "w2", DeviceBudget: est.Device / 2})
	_, err = h2.await(h2.submit(testSpec(3), 0))
	if connect.CodeOf(err) != connect.CodeAborted || !strings.Contains(err.Error(), "of each device's memory, more than the ") || !strings.Contains(err.Error(), "of worker \"w2\"'s device budget") {
		t.Errorf("job over the device budget: %v", err)
	}
}

// Every registered family runs through the service: PLONK's proofs pass
// its verifier (gnark's plonk.Verify) through Checker, and another seed's
// do not.
func TestAPlonkJobRunsAndPassesItsFamilysVerifier(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	spec := &pb.JobSpec{Pipeline: "plonk", Circuit: testCircuit, Size: testSize, Partitions: 2, Seed: 4}
	res, err := h.await(h.submit(spec, 0))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.Family != "plonk" {
		t.Errorf("family %q", res.Status.Family)
	}
	check := &Checker{KeysDir: h.keys}
	if err := check.Check(spec, res.Proofs); err != nil {
		t.Fatal(err)
	}
	spec.Seed = 5
	if err := check.Check(spec, res.Proofs); err == nil {
		t.Error("another seed's proofs passed")
	}
}

// A job whose workers keep going away without ending it fails after
// --max-deliveries, saying so, instead of going round for ever.
func TestAJobDeliveredTooOftenFailsSayingSo(t *testing.T) {
	h := newHarness(t, "")
	inner := h.engineRunner()
	id := h.submit(testSpec(1), 0)
	for i := 1; i <= 2; i++ {
		// A worker that never finishes the job, stopped while it runs it.
		stop := h.startStoppable(WorkerConfig{Name: fmt.Sprintf("w%d", i), MaxDeliveries: 2, Runner: gated(inner)})
		waitFor(t, "the job running", func() bool {
			s := h.status(id)
			return s.State == pb.JobState_JOB_STATE_RUNNING && s.Deliveries == uint32(i)
		})
		stop()
	}
	h.start(WorkerConfig{Name: "w3", MaxDeliveries: 2, Runner: inner})
	_, err := h.await(id)
	if connect.CodeOf(err) != connect.CodeAborted || !strings.Contains(err.Error(), "handed to workers 2 times without an end (limit 2)") {
		t.Errorf("await: %v", err)
	}
}
