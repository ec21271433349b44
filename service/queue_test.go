package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// metricValue reads one series from the harness's /metrics.
func (h *harness) metricValue(series string) float64 {
	h.t.Helper()
	resp, err := http.Get(h.url + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		h.t.Fatalf("no series %s in:\n%s", series, body)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// List shows the newest jobs first and pages to the oldest.
func TestListShowsTheNewestJobsFirstAndPagesToTheOldest(t *testing.T) {
	h := newHarness(t, "")
	var ids []string
	for i := range 5 {
		ids = append(ids, h.submit(testSpec(uint64(i+1)), 0))
	}
	var got []string
	token := ""
	for page := 0; ; page++ {
		if page > 3 {
			t.Fatalf("more than 3 pages of 2 for 5 jobs: %v", got)
		}
		resp, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{Limit: 2, PageToken: token}))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Msg.Jobs) == 0 || len(resp.Msg.Jobs) > 2 {
			t.Fatalf("page %d: %d jobs, want 1 or 2", page, len(resp.Msg.Jobs))
		}
		for _, j := range resp.Msg.Jobs {
			got = append(got, j.JobId)
		}
		token = resp.Msg.NextPageToken
		if token == "" {
			break
		}
	}
	want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("listed %v, want the newest first %v", got, want)
	}
	_, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{PageToken: "x1"}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), `page_token "x1": not a next_page_token`) {
		t.Errorf("bad page token: %v", err)
	}
}

// Cancelling a job that has already ended, cancelled included, is
// refused naming its state, and the job is counted cancelled once.
func TestCancellingAnEndedJobIsRefusedAndCountedOnce(t *testing.T) {
	m, err := NewMetrics()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h := newHarnessWith(t, "", m)
	id := h.submit(testSpec(1), 0)
	cancel := func() error {
		_, err := h.client.Cancel(context.Background(), connect.NewRequest(&pb.CancelRequest{JobId: id}))
		return err
	}
	if err := cancel(); err != nil {
		t.Fatal(err)
	}
	err = cancel()
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), `job "`+id+`" already ended: cancelled`) {
		t.Errorf("second cancel: %v, want failed_precondition naming the state", err)
	}
	if n := h.metricValue(`prooflane_service_jobs_total{state="cancelled"}`); n != 1 {
		t.Errorf("jobs_total{state=cancelled} = %v after two cancels of one job, want 1", n)
	}
}

// forge writes res as job id's result, as a process on the queue's NATS
// could, and (when done) marks the job done.
func (h *harness) forge(id string, res result, done bool) {
	h.t.Helper()
	ctx := context.Background()
	b, err := json.Marshal(res)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.srv.st.results.Put(ctx, id, b); err != nil {
		h.t.Fatal(err)
	}
	if !done {
		return
	}
	if _, err := h.srv.st.update(ctx, id, func(r *record) bool {
		r.State, r.Worker = pb.JobState_JOB_STATE_DONE, res.Worker
		return true
	}); err != nil {
		h.t.Fatal(err)
	}
}

// zeroProofs is an all-zero "result" of one partition.
func zeroProofs() []PartitionProof {
	return []PartitionProof{{Partition: 0, Proof: make([]byte, 384), Public: make([]byte, 12)}}
}

// A result written by something other than a worker of the queue, before
// the worker finished, does not stand: the worker's own replaces it and
// await returns that.
func TestAResultWithoutTheQueuesMACIsReplacedByTheWorkers(t *testing.T) {
	h := newHarness(t, "")
	id := h.submit(testSpec(3), 0)
	h.forge(id, result{Worker: "intruder", Proofs: zeroProofs()}, false)
	h.start(WorkerConfig{Name: "w1"})
	res, err := h.await(id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.Worker != "w1" {
		t.Errorf("job done by %q, want w1", res.Status.Worker)
	}
	verifyProofs(t, h.keys, testSpec(3), res.Proofs)
}

// Await refuses a result whose MAC is missing, made with another secret,
// or made for another job: the stream ends with data_loss naming the
// job, and no proof is sent.
func TestAwaitRefusesAResultWhoseMACIsMissingOrWrong(t *testing.T) {
	h := newHarness(t, "")
	stop := h.startStoppable(WorkerConfig{Name: "w1"})
	real := h.submit(testSpec(1), 0)
	good, err := h.await(real)
	if err != nil {
		t.Fatal(err)
	}
	stop() // no worker runs the jobs forged below
	stored, _, err := h.srv.st.result(context.Background(), &record{ID: real, SpecHash: testSpecHash(t, h, real)})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewSecret()
	for name, forge := range map[string]func(id, specHash string) result{
		"missing": func(string, string) result { return result{Worker: "w1", Proofs: zeroProofs()} },
		"another secret's": func(id, specHash string) result {
			return result{Worker: "w1", Proofs: zeroProofs(), MAC: other.resultMAC(id, "w1", specHash, &Output{Proofs: zeroProofs()})}
		},
		"another job's": func(string, string) result { return *stored },
	} {
		// A job of the same spec: another job's proofs would verify.
		id := h.submit(testSpec(1), 0)
		h.forge(id, forge(id, testSpecHash(t, h, id)), true)
		res, err := h.await(id)
		if connect.CodeOf(err) != connect.CodeDataLoss || !strings.Contains(err.Error(), `job "`+id+`": the result stored by "w1" fails its integrity check`) {
			t.Errorf("%s MAC: %v, want data_loss naming the job", name, err)
		}
		if res != nil && len(res.Proofs) > 0 {
			t.Errorf("%s MAC: %d proofs sent", name, len(res.Proofs))
		}
	}
	if len(good.Proofs) != 1 {
		t.Fatalf("the real job: %d proofs", len(good.Proofs))
	}
}

// testSpecHash is the spec hash in job id's record.
func testSpecHash(t *testing.T, h *harness, id string) string {
	t.Helper()
	r, _, err := h.srv.st.get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r.SpecHash
}

// flakyKV fails its first Gets and Updates with a timeout, as a NATS
// cluster electing a stream's leader does.
type flakyKV struct {
	jetstream.KeyValue
	gets, updates atomic.Int32
}

func (f *flakyKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if f.gets.Add(-1) >= 0 {
		return nil, nats.ErrTimeout
	}
	return f.KeyValue.Get(ctx, key)
}

func (f *flakyKV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	if f.updates.Add(-1) >= 0 {
		return 0, nats.ErrTimeout
	}
	return f.KeyValue.Update(ctx, key, value, rev)
}

// A worker whose reads and writes of the jobs' records time out a few
// times (a leader election) tries them again: the job is neither dropped
// nor acknowledged unended, and completes.
func TestAWorkerRidesOutRecordsUnreachableForAWhile(t *testing.T) {
	h := newHarness(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	nc, err := Connect("", h.ns, h.secret, "flaky-worker")
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(ctx, WorkerConfig{Conn: nc, Name: "w1", Runner: h.engineRunner(), Secret: h.secret})
	if err != nil {
		t.Fatal(err)
	}
	flaky := &flakyKV{KeyValue: w.st.jobs}
	flaky.gets.Store(3)
	flaky.updates.Store(3)
	w.st.jobs = flaky
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; nc.Close() })
	id := h.submit(testSpec(6), 0)
	actx, acancel := context.WithTimeout(ctx, 2*time.Minute)
	defer acancel()
	res, err := awaitCtx(actx, h.client, id)
	if err != nil {
		t.Fatalf("job %s: %v", id, err)
	}
	verifyProofs(t, h.keys, testSpec(6), res.Proofs)
	if flaky.gets.Load() >= 0 || flaky.updates.Load() >= 0 {
		t.Errorf("the faults were not all met: %d gets, %d updates left", flaky.gets.Load(), flaky.updates.Load())
	}
}

// awaitCtx is awaitJob within ctx.
func awaitCtx(ctx context.Context, cl prooflanev1connect.ProverServiceClient, id string) (*pb.AwaitResponse, error) {
	stream, err := cl.Await(ctx, connect.NewRequest(&pb.AwaitRequest{JobId: id}))
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

// deadWatchKV's watches never deliver: a watch whose consumer went away
// with its server.
type deadWatchKV struct{ jetstream.KeyValue }

type deadWatch struct{ c chan jetstream.KeyValueEntry }

func (d deadWatch) Updates() <-chan jetstream.KeyValueEntry { return d.c }
func (d deadWatch) Stop() error                             { return nil }

func (deadWatchKV) Watch(context.Context, string, ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	return deadWatch{make(chan jetstream.KeyValueEntry)}, nil
}

// Await does not depend on its watch alone: with a watch that never
// delivers, it still ends with the job's proofs.
func TestAwaitEndsWhenItsWatchFallsSilent(t *testing.T) {
	defer func(old time.Duration) { awaitPoll = old }(awaitPoll)
	awaitPoll = 100 * time.Millisecond
	h := newHarness(t, "")
	nc, err := Connect("", h.ns, h.secret, "silent-server")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	srv, err := NewServer(context.Background(), nc, ServerConfig{Secret: h.secret})
	if err != nil {
		t.Fatal(err)
	}
	srv.st.jobs = deadWatchKV{srv.st.jobs}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	cl := prooflanev1connect.NewProverServiceClient(hs.Client(), hs.URL)
	h.start(WorkerConfig{Name: "w1"})
	id := h.submit(testSpec(8), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := awaitCtx(ctx, cl, id)
	if err != nil {
		t.Fatalf("job %s: %v", id, err)
	}
	verifyProofs(t, h.keys, testSpec(8), res.Proofs)
}
